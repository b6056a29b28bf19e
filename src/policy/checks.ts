/**
 * The checks the tools and the hooks share: a shell command line, and a proposed file edit, each against
 * a compiled bundle, with the `agent_remediation` payload that remediation_explain expands. A command's
 * writes (redirections, `tee`, `cp` onto, `sed -i`, `rm`, …) are judged as edits of the files they reach;
 * an edit is judged at every name it changes (edit-targets.ts). What cannot be decided is `warn` (the human
 * is asked), never `allowed`.
 */
import fs from "node:fs";
import path from "node:path";
import { dirEntries } from "../paths/dir-entries.js";
import type { Bundle, CheckOutcome, CheckStatus, Violation } from "./bundle.js";
import type { CelContext } from "./cel.js";
import { commandContext, type CommandSite } from "./command-context.js";
import {
  difference,
  editContext,
  editLines,
  filesOfDiff,
  linesBetween,
  type EditInput,
  type EditLines,
  type WriteKind,
} from "./edit-context.js";
import { resolveEdit } from "./edit-targets.js";
import { CONFIG_FILE } from "./config-weakening.js";
import { isGuardFile } from "./guard-files.js";
import { globRegExp } from "./shell/find.js";
import type { ConfigLookup } from "./git/invocation.js";
import { secretsIn } from "./secrets.js";
import type { SimpleCommand, Write } from "./shell.js";

/** The largest command the tools accept (larger is an invalid argument); the hook reads up to its stdin cap. */
export const MAX_COMMAND_CHARS = 16 * 1024 * 1024;
/** A longer line is not parsed: it is undecided at once (the human is asked), whatever it holds. */
export const MAX_CHECKED_COMMAND_CHARS = 64 * 1024;
/** Files looked at under a directory a command removes or re-modes recursively (shallowest first). */
const MAX_TREE_ENTRIES = 2000;

export interface CommandCheck extends CheckOutcome {
  /** The simple commands found and checked (after looking through wrappers). */
  commands_checked: number;
  parse_error: boolean;
  /** Why the line cannot be decided, when it cannot. */
  undecided?: string[];
}

export interface CheckSite {
  cwd: string;
  projectRoot: string;
  home: string;
  /** The roots edits are judged from (default: the project root). */
  roots?: string[];
  /** How git aliases are read (default: git config in the command's directory). */
  gitConfig?: ConfigLookup;
  /** Past this time (ms since the epoch) the check stops, undecided. */
  deadline?: number;
  /** false: every command line is parsed, plain words too (the tests prove both ways agree). */
  plain?: boolean;
}

/** The shell model: tree-sitter and its WebAssembly are loaded only when a command is checked. */
const shellModel = () => import("./shell.js");

export async function checkCommand(
  bundle: Bundle,
  input: { command?: string; argv?: string[] },
  site: CheckSite,
): Promise<CommandCheck> {
  const size =
    input.argv !== undefined
      ? input.argv.reduce((n, a) => n + a.length + 1, 0)
      : (input.command ?? "").length;
  if (size > MAX_CHECKED_COMMAND_CHARS) {
    const why = `the command is ${size} characters long, over the ${MAX_CHECKED_COMMAND_CHARS} that are read`;
    return {
      ...bundle.outcome(bundle.undecidable("command", [why]), []),
      commands_checked: 0,
      parse_error: false,
      undecided: [why],
    };
  }
  const { commandsFromArgv, parseCommandLine } = await shellModel();
  const shellSite = {
    cwd: site.cwd,
    home: site.home,
    ...(site.gitConfig ? { gitConfig: site.gitConfig } : {}),
    ...(site.plain === false ? { plain: false } : {}),
    ...(site.deadline !== undefined ? { deadline: site.deadline } : {}),
    roots: site.roots ?? [site.projectRoot],
  };
  const parsed =
    input.argv !== undefined
      ? await commandsFromArgv(input.argv, shellSite)
      : await parseCommandLine(input.command ?? "", shellSite);
  const full: CommandSite = {
    cwd: site.cwd,
    projectRoot: site.projectRoot,
    home: site.home,
    parseError: parsed.parseError,
    undecided: parsed.undecided,
  };
  const roots = site.roots ?? [site.projectRoot];
  const contexts: { context: CelContext; label: string }[] = [];
  const editViolations: Violation[] = [];
  for (const command of parsed.commands) {
    const judged = await judgeWrites(bundle, command, site.cwd, roots, site.deadline);
    editViolations.push(...judged.violations);
    contexts.push({ context: commandContext(command, full, { writes: judged.paths }), label: command.text });
  }
  if (contexts.length === 0)
    contexts.push({
      context: commandContext(
        {
          argv: [],
          dynamic: [],
          env: {},
          stdinFrom: "",
          via: [],
          text: "",
          redirects: [],
          codeFrom: [],
          undecided: "",
        },
        full,
      ),
      label: "",
    });
  const outcome = bundle.check("command", contexts, { deadline: site.deadline });
  return {
    ...bundle.outcome([...outcome.violations, ...editViolations], outcome.evaluation_errors),
    commands_checked: parsed.commands.length,
    parse_error: parsed.parseError,
    ...(parsed.undecided.length ? { undecided: parsed.undecided } : {}),
  };
}

/** The files under a directory, shallowest first, bounded. */
function treeOf(dir: string): string[] {
  const out: string[] = [];
  const queue = [dir];
  while (queue.length && out.length < MAX_TREE_ENTRIES) {
    const d = queue.shift() as string;
    for (const e of dirEntries(d)) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) queue.push(p);
      else out.push(p);
      if (out.length >= MAX_TREE_ENTRIES) break;
    }
  }
  return out;
}

/** The entries of a folder that a glob in its last component matches. */
function globbed(pattern: string): string[] {
  const re = globRegExp(path.basename(pattern));
  try {
    return fs
      .readdirSync(path.dirname(pattern))
      .filter((e) => re.test(e))
      .slice(0, MAX_TREE_ENTRIES)
      .map((e) => path.join(path.dirname(pattern), e));
  } catch {
    return [];
  }
}

const nameMatches = (name: string, globs: readonly string[]) => globs.some((g) => globRegExp(g).test(name));

/** Text read to judge what a write puts in a file (the file it copies, the file it adds to); larger: by name. */
const MAX_CONTENT_BYTES = 1024 * 1024;

/** Content read for one command's writes at most (a large tree copied): past it, files are judged by name. */
const MAX_CONTENT_TOTAL = 16 * 1024 * 1024;
let contentBudget = MAX_CONTENT_TOTAL;

function readText(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_CONTENT_BYTES || st.size > contentBudget) return undefined;
    contentBudget -= st.size;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const isDirectory = (p: string) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** git's pathspecs never reach its own folder. */
const inGitDir = (relative: string) => relative.split(path.sep).includes(".git");

const insideRoots = (file: string, roots: readonly string[]) =>
  roots.some((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));

/** One file a write reaches, and the file whose copy it receives. */
interface Reached {
  name: string;
  copyOf?: string;
}

/**
 * Where a folder copied (or moved) into `dest` puts each of its files: under `dest/<its name>` onto an
 * existing folder, else (or for its contents, `fake/.`, rsync's `fake/`) under `dest` itself. undefined:
 * the folder is not there to read.
 */
function treeTargets(
  from: string,
  dest: string,
  into: "auto" | "contents",
  git = false,
): Reached[] | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(from);
  } catch {
    return undefined;
  }
  const base = into === "auto" && isDirectory(dest) ? path.join(dest, path.basename(from)) : dest;
  if (!st.isDirectory()) return [{ name: base, copyOf: from }];
  return treeOf(from)
    .filter((f) => !git || !inGitDir(path.relative(from, f)))
    .map((f) => ({ name: path.join(base, path.relative(from, f)), copyOf: f }));
}

/** What a write puts in a file, as an edit from its text now: undefined when the line does not show it. */
function contentOf(
  write: Write,
  reached: Reached,
): { before: string; after: string; lines: EditLines } | undefined {
  if (write.kind !== "write") return { before: "", after: "", lines: { added: [], removed: [] } };
  if (write.adds !== undefined) {
    const before = (write.removes ?? []).join("\n");
    const after = write.adds.join("\n");
    return { before, after, lines: difference(write.removes ?? [], write.adds) };
  }
  const text = write.text ?? (reached.copyOf !== undefined ? readText(reached.copyOf) : undefined);
  if (text === undefined) return undefined;
  const now = readText(reached.name) ?? "";
  const after = write.append ? now + text : text;
  return { before: now, after, lines: linesBetween(now, after) };
}

/** A command's writes judged as edits of what they reach: the violations, and the paths for `writes`. */
async function judgeWrites(
  bundle: Bundle,
  command: SimpleCommand,
  lineCwd: string,
  roots: readonly string[],
  deadline: number | undefined,
): Promise<{ violations: Violation[]; paths: string[] }> {
  const violations: Violation[] = [];
  const paths: string[] = [];
  const undecided: string[] = [];
  const cwd = command.cwd ?? lineCwd;
  contentBudget = MAX_CONTENT_TOTAL;
  for (const write of command.writes ?? []) {
    if (write.path === "" || /^\/dev\/(null|std(out|err)|tty|fd\/\d+)$/.test(write.path)) continue;
    // A name only known when the line runs could be any file, a hook too: fail closed.
    if (write.dynamic) {
      undecided.push(`it ${labelOf(write)} ${write.why ?? write.path}, only known when the line runs`);
      continue;
    }
    // After a `cd` to a place only known when the line runs, a relative name is too (`cd "$D" && > pre-commit`).
    if (command.cwd === undefined && !path.isAbsolute(write.path)) {
      undecided.push(`it ${labelOf(write)} ${write.path} in a folder only known when the line runs`);
      continue;
    }
    const absolute = path.resolve(cwd, write.path);
    // A glob in the last component is judged by what it matches there (`rm -rf ./*`, `chmod -R 777 ./.*`).
    const matched = /[*?[]/.test(path.basename(absolute)) ? globbed(absolute) : [absolute];
    const copyOf = write.copyOf !== undefined ? path.resolve(cwd, write.copyOf) : undefined;
    const reached: Reached[] = write.names || write.tree ? [] : matched.map((name) => ({ name, copyOf }));
    if (write.recursive && (write.kind !== "write" || write.names || write.each))
      for (const m of matched) {
        if (write.moved && !insideRoots(m, roots)) continue;
        const tree = treeOf(m).filter((f) => !write.git || !inGitDir(path.relative(m, f)));
        reached.push(
          ...(write.names ? tree.filter((f) => nameMatches(path.basename(f), write.names ?? [])) : tree).map(
            (name) => ({ name }),
          ),
        );
      }
    // What lands outside the roots is not an edit of the project: a folder copied out is not walked.
    if (write.tree && insideRoots(absolute, roots)) {
      const from = path.resolve(cwd, write.tree.from);
      const into = /\/\.\/?$/.test(write.tree.from) ? "contents" : write.tree.into;
      const tree = treeTargets(from, absolute, into, write.tree.git === true);
      if (tree) reached.push(...tree);
      else if (insideRoots(absolute, roots))
        undecided.push(
          `it copies ${write.tree.from} into ${write.path}, and what it holds is not there to read`,
        );
    }
    for (const { name, copyOf: from } of reached) {
      if (deadline !== undefined && Date.now() > deadline) {
        undecided.push("its writes were not all judged within the check's deadline");
        break;
      }
      const resolved = resolveEdit(name, roots);
      const content = contentOf(write, { name, ...(from !== undefined ? { copyOf: from } : {}) });
      const lines = content?.lines ?? { added: [], removed: [] };
      const secrets = lines.added.length ? await secretsIn(lines.added) : [];
      const contexts = resolved.targets.flatMap((t) =>
        t.paths.map((p) => ({
          context: editContext(
            {
              path: p,
              before: content?.before ?? "",
              after: content?.after ?? "",
              header: resolved.header ?? "",
              writeKind: write.kind as WriteKind,
              outsideAllowedPaths: t.outside,
              guardFile: isGuardFile(t.absolute),
            },
            lines,
            secrets,
          ),
          label: `${labelOf(write)} ${p}`,
        })),
      );
      // A lint or type-check config rewritten with text the line does not show may weaken it: ask.
      if (
        write.kind === "write" &&
        (content === undefined || write.transformed) &&
        CONFIG_FILE.test(path.basename(name)) &&
        resolved.targets.some((t) => !t.outside)
      )
        undecided.push(
          `it rewrites ${path.relative(cwd, name) || name}, and the line does not show the result`,
        );
      paths.push(...resolved.targets.flatMap((t) => t.paths));
      const outcome = bundle.check("edit", contexts, { deadline });
      violations.push(...outcome.violations);
    }
  }
  if (undecided.length) violations.push(...bundle.undecidable("edit", [...new Set(undecided)]));
  return { violations, paths: [...new Set(paths)] };
}

function labelOf(write: Write): string {
  return { write: "writes", delete: "removes", mode: "changes the mode of", link: "links" }[write.kind];
}

export interface EditCheckOptions {
  /** The edit's absolute path: resolved as the filesystem will (links, hard links) when `roots` are given. */
  absolute?: string;
  roots?: readonly string[];
  /** False: judge `path` only, without looking at the filesystem (the bundle's examples). */
  resolve?: boolean;
  deadline?: number;
}

/** One edit judged at every name it changes; a diff's other files are judged by the caller (checkDiff). */
export async function checkEdit(
  bundle: Bundle,
  edit: EditInput,
  options: EditCheckOptions = {},
): Promise<CheckOutcome> {
  const lines = editLines(edit);
  return judgeEdit(bundle, edit, lines, await secretsIn(lines.added, edit.path), options);
}

async function judgeEdit(
  bundle: Bundle,
  edit: EditInput,
  lines: EditLines,
  secrets: string[],
  options: EditCheckOptions,
): Promise<CheckOutcome> {
  const contexts: { context: CelContext; label: string }[] = [];
  const extra: Violation[] = [];
  if (options.resolve !== false && options.absolute && options.roots?.length) {
    const resolved = resolveEdit(options.absolute, options.roots);
    const header = edit.header ?? resolved.header;
    for (const t of resolved.targets)
      for (const p of t.paths)
        contexts.push({
          context: editContext(
            {
              ...edit,
              path: p,
              header,
              outsideAllowedPaths: edit.outsideAllowedPaths || t.outside,
              guardFile: edit.guardFile || isGuardFile(t.absolute),
            },
            lines,
            secrets,
          ),
          label: p,
        });
    if (resolved.undecided) extra.push(...bundle.undecidable("edit", [resolved.undecided]));
  } else
    contexts.push({
      context: editContext(
        {
          ...edit,
          guardFile: edit.guardFile || (options.absolute !== undefined && isGuardFile(options.absolute)),
        },
        lines,
        secrets,
      ),
      label: edit.path,
    });
  const outcome = bundle.check("edit", contexts, { deadline: options.deadline });
  return bundle.outcome([...outcome.violations, ...extra], outcome.evaluation_errors);
}

/**
 * An edit given as a unified diff: the file in `path`, and every other file the diff's headers name (each
 * with its own hunks), resolved from `base` (the project root the diff is relative to).
 */
export async function checkDiff(
  bundle: Bundle,
  edit: EditInput & { diff: string },
  base: string,
  relativeOf: (absolute: string) => { path: string; outside: boolean },
  options: EditCheckOptions = {},
): Promise<CheckOutcome> {
  const outcomes: CheckOutcome[] = [await checkEdit(bundle, edit, options)];
  const main = options.absolute;
  for (const file of filesOfDiff(edit.diff)) {
    if (!file.path) continue;
    for (const name of [file.path, ...(file.oldPath ? [file.oldPath] : [])]) {
      const absolute = path.resolve(base, name);
      if (absolute === main) continue;
      const where = relativeOf(absolute);
      const lines = difference(file.removed, file.added);
      outcomes.push(
        await judgeEdit(
          bundle,
          {
            path: where.path,
            before: "",
            after: "",
            writeKind: file.deleted ? "delete" : "edit",
            outsideAllowedPaths: where.outside,
          },
          lines,
          await secretsIn(lines.added, where.path),
          { ...options, absolute },
        ),
      );
    }
  }
  return bundle.outcome(
    outcomes.flatMap((o) => o.violations),
    outcomes.flatMap((o) => o.evaluation_errors),
  );
}

/** What an agent needs to act on a refusal; remediation_explain expands it. */
export interface AgentRemediation {
  bundle_hash: string;
  status: CheckStatus;
  action: { kind: "command"; command: string } | { kind: "edit"; path: string };
  policy_ids: string[];
  principle_ids: string[];
  skill_ids: string[];
  retry: string;
}

export function agentRemediation(
  bundle: Bundle,
  outcome: CheckOutcome,
  action: AgentRemediation["action"],
): AgentRemediation | null {
  if (outcome.violations.length === 0) return null;
  const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];
  const tool = action.kind === "command" ? "policy_check_command" : "policy_check_edit";
  return {
    bundle_hash: bundle.hash,
    status: outcome.status,
    action: action.kind === "command" ? { kind: "command", command: action.command.slice(0, 2000) } : action,
    policy_ids: uniq(outcome.violations.map((v) => v.policy_id)),
    principle_ids: uniq(outcome.violations.map((v) => v.principle_id)),
    skill_ids: uniq(outcome.violations.map((v) => v.skill_id)),
    retry:
      outcome.status === "blocked"
        ? `Do not retry the same ${action.kind}. Follow each violation's advice, change the ${action.kind}, and check it again with ${tool}.`
        : `Confirm with the human or follow the advice, then check again with ${tool}.`,
  };
}

export type { EditInput };
