/**
 * What every git the server starts is given so that it runs no program a repository's config names. A
 * project's `.git/config` (or a forged git dir its `.git` file points at) is the project's code: with
 * `core.fsmonitor = node x.mjs` a plain `git ls-files` ran x.mjs (a red team's read-only `lint`). Command-line
 * `-c` settings win over every config file, so these turn off each setting that runs a program. Filters,
 * textconv drivers (named per repository) and `diff.external` (an empty one breaks `git diff`; the server asks
 * for names only) cannot be turned off here: git's runs are sandboxed as project code (tool-facts.ts).
 */

/** `-c` settings before git's subcommand. */
export const GIT_SAFE_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.editor=false",
  "sequence.editor=false",
  "core.askPass=",
  "core.sshCommand=false",
  "core.gitProxy=",
  "credential.helper=",
  "gpg.program=false",
  "protocol.allow=never",
  "uploadpack.packObjectsHook=",
].flatMap((setting) => ["-c", setting]);

/** The environment over the server's for git: no system config, no pager, no editor, no prompt. */
export const GIT_SAFE_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "false",
  GIT_TERMINAL_PROMPT: "0",
};

/** Whether `executable` is git (by its file name). */
export function isGit(executable: string): boolean {
  return /(^|\/)git$/.test(executable);
}

/** git's arguments with the safe settings first (`git -c … <subcommand> …`). */
export function safeGitArgs(args: readonly string[]): string[] {
  return [...GIT_SAFE_CONFIG, ...args];
}
