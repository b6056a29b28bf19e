/**
 * Which package.json scripts a package manager command runs: `npm run X` / `npm test` / `yarn X` /
 * `pnpm X` / `bun run X` (with `preX` and `postX`, which npm and yarn 1 run around it, and the arguments
 * appended), and the lifecycle scripts an install runs (`preinstall`, `install`, `postinstall`, `prepare`, …).
 * npm, yarn and pnpm run each through `sh -c` in the package's folder. Pure.
 */
import { shellQuote } from "../git/argv.js";

export interface PackageRun {
  /** `--prefix`/`--cwd`/`-C`/`--dir`: the folder whose package.json is read (else the nearest one up). */
  dir?: string;
  /** Script names run, in order (a missing one is skipped, as the package manager does for pre/post). */
  names: string[];
  /** The name the user asked for (the one that must exist, else the manager fails). */
  main?: string;
  /** Shell-quoted arguments appended to the main script. */
  args: string;
}

const LIFECYCLE = [
  "preinstall",
  "install",
  "postinstall",
  "prepublish",
  "preprepare",
  "prepare",
  "postprepare",
];
const NPM_LIFECYCLE_ALIASES: Record<string, string> = { t: "test", tst: "test" };
const NPM_SCRIPT_COMMANDS = new Set(["test", "start", "stop", "restart", "t", "tst"]);
const INSTALLS = new Set([
  "install",
  "i",
  "ci",
  "add",
  "in",
  "ins",
  "inst",
  "insta",
  "instal",
  "isnt",
  "isntall",
  "clean-install",
  "install-clean",
  "rebuild",
  "rb",
]);
/** Commands of yarn (1 and berry) and pnpm that are not scripts (an unknown word is a script). */
const YARN_BUILTINS = new Set(
  "access add audit autoclean bin cache check config constraints create dedupe dlx exec explain generate-lock-entry global help import info init install licenses link list login logout node npm outdated owner pack patch patch-commit plugin policies publish rebuild remove search set stage tag team unlink unplug up upgrade upgrade-interactive version versions why workspace workspaces".split(
    " ",
  ),
);
const PNPM_BUILTINS = new Set(
  "add audit bin ci config create dedupe deploy dlx env exec fetch import init install-test it licenses link list ls outdated pack patch patch-commit prune publish rebuild rb recursive remove rm root server setup store un uninstall unlink up update why".split(
    " ",
  ),
);
/** Options of the managers that take a value (so it is not the script's name). */
const VALUE_OPTIONS = new Set([
  "--prefix",
  "-C",
  "--cwd",
  "--dir",
  "--filter",
  "-F",
  "--loglevel",
  "--registry",
  "--userconfig",
  "--cache",
]);
const WORKSPACES =
  /^(-w|--workspace|-ws|--workspaces|-r|--recursive|--filter|-F|--include-workspace-root|workspaces?|--all)(=|$)/;

/**
 * The scripts `argv` runs (its program npm, yarn, pnpm or bun), undefined when it runs none, or a reason
 * when which ones is only known when it runs (a dynamic name, a workspace selection).
 */
export function packageRun(argv: string[], dynamic: boolean[]): PackageRun | { why: string } | undefined {
  const tool = argv[0]?.split("/").at(-1) ?? "";
  let dir: string | undefined;
  const words: { value: string; dynamic: boolean }[] = [];
  let ignoreScripts = false;
  const RUN = new Set(["run", "run-script", "rum", "urn"]);
  // Options count until the script's name (after `run`, or the verb itself); after it every word is the script's.
  const named = () => words.length > 0 && (!RUN.has(words[0]?.value ?? "") || words.length > 1);
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!named() && a.startsWith("-") && a !== "--" && !dynamic[i]) {
      if (WORKSPACES.test(a)) return { why: `${tool} ${a} runs scripts of other packages of the workspace` };
      if (a === "--ignore-scripts") ignoreScripts = true;
      const eq = /^(--prefix|--cwd|--dir)=(.*)$/.exec(a);
      if (eq) dir = eq[2];
      if (VALUE_OPTIONS.has(a)) {
        if (["--prefix", "-C", "--cwd", "--dir"].includes(a)) {
          if (dynamic[i + 1]) return { why: `${tool} ${a} names a folder only known when the line runs` };
          dir = argv[i + 1];
        }
        i++;
      }
      continue;
    }
    words.push({ value: a, dynamic: dynamic[i] ?? false });
  }
  const [verb, ...rest] = words;
  const installs = () =>
    ignoreScripts ? undefined : { ...(dir ? { dir } : {}), names: LIFECYCLE, args: "" };
  if (!verb) return tool === "yarn" || tool === "pnpm" ? installs() : undefined; // bare `yarn` installs
  if (verb.dynamic) return { why: `${tool} runs a command only known when the line runs (${verb.value})` };
  let name: { value: string; dynamic: boolean } | undefined;
  let args = rest;
  if (RUN.has(verb.value)) {
    [name, ...args] = rest;
    if (!name) return undefined; // lists the scripts
  } else if (INSTALLS.has(verb.value)) return tool === "bun" ? undefined : installs();
  else if (tool === "npm" && NPM_SCRIPT_COMMANDS.has(verb.value))
    name = { value: NPM_LIFECYCLE_ALIASES[verb.value] ?? verb.value, dynamic: false };
  else if (tool === "yarn" && !YARN_BUILTINS.has(verb.value)) name = verb;
  else if (tool === "pnpm" && !PNPM_BUILTINS.has(verb.value))
    name = { value: NPM_LIFECYCLE_ALIASES[verb.value] ?? verb.value, dynamic: false };
  else return undefined;
  if (name.dynamic) return { why: `${tool} runs a script whose name is only known when the line runs` };
  const extra = args.filter((w) => w.value !== "--");
  if (extra.some((w) => w.dynamic))
    return { why: `${tool} passes the script arguments only known when the line runs` };
  const main = name.value;
  // npm's `restart` runs stop then start when it has no script of its own; judging all three is safe.
  const names =
    main === "restart"
      ? ["prerestart", "restart", "postrestart", "stop", "start"]
      : [`pre${main}`, main, `post${main}`];
  return { ...(dir ? { dir } : {}), names, main, args: extra.map((w) => shellQuote(w.value)).join(" ") };
}

/** The `scripts` of a package.json's text, or a reason it cannot be read. */
export function scriptsOf(text: string): Record<string, string> | { why: string } {
  try {
    const json = JSON.parse(text) as { scripts?: unknown };
    const scripts = json.scripts ?? {};
    if (typeof scripts !== "object" || scripts === null || Array.isArray(scripts))
      return { why: "its scripts are not an object" };
    return Object.fromEntries(
      Object.entries(scripts as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === "string",
      ),
    );
  } catch (err) {
    return { why: `it is not JSON (${(err as Error).message})` };
  }
}
