/** pytest: which interpreter runs it, a pure argv builder and a parser of its final summary line. */
import fs from "node:fs";
import path from "node:path";
import { findExecutable } from "../../exec/which.js";
import { isWithin } from "../../paths/allowlist.js";
import { registerExternalTool } from "../registry.js";
import { tomlTable } from "./checker-config.js";
import { iniSection } from "./ini.js";
import { findPythonEnvironment } from "./venv.js";

registerExternalTool({ name: "pytest", program: "pytest", versionArgs: ["--version"] });

export interface PytestInvocation {
  /** What to spawn: the virtualenv's python (with `-m pytest`), or a pytest executable. */
  program: string;
  prefixArgs: string[];
  /** Display name of the program (`pytest`, or the interpreter's path). */
  display: string;
  /** Says which pytest runs, for the result's notes. */
  note: string;
  /** True when pytest runs inside the project's virtualenv. */
  fromVenv: boolean;
}

/**
 * The project's own pytest first: a virtualenv ($VIRTUAL_ENV, .venv/ or venv/ in `start` or a parent up
 * to `root`) runs `<venv>/bin/python -m pytest`, so its plugins (pytest-cov, ...) and packages are used,
 * including system site-packages it may inherit. Otherwise the `pytest` first on PATH.
 */
export function resolvePytest(start: string, root: string): PytestInvocation | undefined {
  const env = findPythonEnvironment(start, root);
  if (env) {
    const python = ["python", "python3"]
      .map((n) => path.join(env.binDir, n))
      .find((p) => fs.existsSync(p)) as string;
    return {
      program: python,
      prefixArgs: ["-m", "pytest"],
      display: python,
      note: `pytest run as \`${python} -m pytest\` (the project's virtualenv ${env.origin})`,
      fromVenv: true,
    };
  }
  const exe = findExecutable("pytest");
  if (!exe) return undefined;
  return {
    program: exe,
    prefixArgs: [],
    display: "pytest",
    note: `pytest from PATH (${exe}); no project virtualenv found`,
    fromVenv: false,
  };
}

export interface PytestOptions {
  /**
   * Canonical test path (file or directory); undefined to let the config's `testpaths` choose, as `pytest` run
   * from the config's folder does.
   */
  target?: string;
  pattern?: string;
  markers?: string;
  verbose: boolean;
  failFast: boolean;
  /** Directory measured by --cov, when coverage is asked and the project configures no source. */
  coverageSource?: string;
  /** The project's coverage config with a `source`: bare `--cov` and `--cov-config`, so it decides. */
  coverageConfig?: string;
  /** Plugins loaded explicitly (`-p name`), autoloading being off. */
  plugins?: readonly string[];
  /** Where pytest writes its JUnit XML report. */
  junitXml: string;
  /** What keeps pytest inside the allowed root (see `pytestConfinement`). */
  confinement?: PytestConfinement;
}

export interface PytestConfinement {
  /** conftest.py files above it are not loaded (--confcutdir). */
  confcutdir: string;
  /** The config file (-c): the project's, or an empty one, so that none above the root is searched for. */
  configFile: string;
  /** Given with the empty config, where pytest would have put it. */
  rootdir?: string;
}

/** Files pytest takes as its config, in its order, with the section that makes them one. */
const PYTEST_CONFIGS: [string, RegExp | undefined][] = [
  ["pytest.ini", undefined],
  [".pytest.ini", undefined],
  ["pyproject.toml", /^\[tool\.pytest(\.ini_options)?\]/m],
  ["tox.ini", /^\[pytest\]/m],
  ["setup.cfg", /^\[tool:pytest\]/m],
];

/**
 * pytest searches every ancestor of the tests for its config and loads conftest.py files above them, beyond
 * the allowed root. This finds the config as pytest would but only from `start` up to `root` (a file linked
 * from outside is not taken), and otherwise hands pytest an empty one (`emptyConfig`), with the rootdir
 * pytest would have picked: the nearest folder with setup.py or pyproject.toml, else the common ancestor
 * of `start` and pytest's working directory `cwd` (kept inside the root).
 */
export function pytestConfinement(
  start: string,
  root: string,
  emptyConfig: string,
  cwd: string,
): PytestConfinement {
  const inside = (f: string) => fs.existsSync(f) && isWithin(root, fs.realpathSync.native(f));
  let rootdir: string | undefined;
  for (let dir = start; isWithin(root, dir); dir = path.dirname(dir)) {
    for (const [name, section] of PYTEST_CONFIGS) {
      const file = path.join(dir, name);
      if (inside(file) && (!section || section.test(fs.readFileSync(file, "utf8"))))
        // As pytest by hand: conftest.py files above the config's folder are not loaded.
        return { confcutdir: dir, configFile: file };
    }
    rootdir ??= ["setup.py", "pyproject.toml"].some((n) => inside(path.join(dir, n))) ? dir : undefined;
    if (dir === path.dirname(dir)) break;
  }
  fs.writeFileSync(emptyConfig, "");
  const common = commonAncestor(start, cwd);
  const chosen = rootdir ?? (isWithin(root, common) ? common : start);
  // As pytest by hand without a config: no conftest.py above its rootdir (not the allowed root: a skip-all
  // conftest.py one folder above a project passed its failing tests).
  return { confcutdir: chosen, configFile: emptyConfig, rootdir: chosen };
}

function commonAncestor(a: string, b: string): string {
  let dir = a;
  while (!isWithin(dir, b) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return dir;
}

/** A `testpaths` value: a TOML list of strings, or an INI value split on whitespace as pytest splits it. */
function pathsOf(value: unknown): string[] | undefined {
  const list =
    typeof value === "string"
      ? value.split(/\s+/).filter(Boolean)
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? (value as string[])
        : undefined;
  return list?.length ? list : undefined;
}

/**
 * The `testpaths` of a pytest config file (pytest.ini, .pytest.ini, pyproject.toml's [tool.pytest.ini_options]
 * or pytest 9's [tool.pytest], tox.ini's [pytest], setup.cfg's [tool:pytest]); undefined when it sets none.
 * pytest searches them when it is run from the config's folder with no path.
 */
export function pytestTestpaths(configFile: string): string[] | undefined {
  let text: string;
  try {
    text = fs.readFileSync(configFile, "utf8");
  } catch {
    return undefined;
  }
  switch (path.basename(configFile)) {
    case "pyproject.toml":
      return (
        pathsOf(tomlTable(text, "tool", "pytest", "ini_options")?.testpaths) ??
        pathsOf(tomlTable(text, "tool", "pytest")?.testpaths)
      );
    case "pytest.ini":
    case ".pytest.ini":
    case "tox.ini":
      return pathsOf(iniSection(text, "pytest")?.testpaths);
    case "setup.cfg":
      return pathsOf(iniSection(text, "tool:pytest")?.testpaths);
    default:
      return undefined;
  }
}

/** True when `pattern` names test files (a glob such as `test_*.py`) rather than a `-k` expression. */
export function isFileGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern) || pattern.endsWith(".py");
}

/**
 * `pytest [path] -p no:cacheprovider [...]`: no cache writes (a read-only project works), a file-glob
 * pattern → `-o python_files=`, any other pattern → `-k`, markers → `-m`, JUnit XML (xunit1, which
 * carries each test's file and line) into the temp dir.
 */
export function pytestArgs(o: PytestOptions): string[] {
  const args = [...(o.target === undefined ? [] : [o.target]), "-p", "no:cacheprovider"];
  for (const plugin of o.plugins ?? []) args.push("-p", plugin);
  if (o.confinement) {
    const { confcutdir, configFile, rootdir } = o.confinement;
    args.push(`--confcutdir=${confcutdir}`, "-c", configFile);
    if (rootdir) args.push(`--rootdir=${rootdir}`);
  }
  if (o.pattern !== undefined)
    args.push(...(isFileGlob(o.pattern) ? ["-o", `python_files=${o.pattern}`] : ["-k", o.pattern]));
  if (o.markers !== undefined) args.push("-m", o.markers);
  if (o.verbose) args.push("-v");
  if (o.failFast) args.push("-x");
  if (o.coverageConfig) args.push("--cov", `--cov-config=${o.coverageConfig}`, "--cov-report=term-missing");
  else if (o.coverageSource) args.push(`--cov=${o.coverageSource}`, "--cov-report=term-missing");
  args.push(`--junit-xml=${o.junitXml}`, "-o", "junit_family=xunit1");
  return args;
}

/** Outcome counts as pytest prints them; the singular/plural forms are folded into one key. */
export type PytestSummary = Record<string, number>;

const KEY_NAMES: Record<string, string> = { error: "errors", warning: "warnings" };

/**
 * Parses pytest's final line, e.g. `=== 2 failed, 5 passed, 2 skipped, 1 xfailed, 1 xpassed,
 * 1 warning, 1 error in 0.03s ===`, into `{failed: 2, passed: 5, ..., warnings: 1, errors: 1}`.
 * `no tests ran in 0.01s` gives `{}`; undefined when there is no summary line at all.
 */
export function parsePytestSummary(output: string): PytestSummary | undefined {
  const lines = output.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).replace(/^=+\s*|\s*=+$/g, "").trim();
    const m = /^(.*?)\s*\bin \d+(?:\.\d+)?s\b/.exec(line);
    if (!m) continue;
    const counts = [...(m[1] as string).matchAll(/(\d+) ([a-z]+)/g)];
    if (counts.length === 0 && !/no tests ran/.test(line)) continue;
    const summary: PytestSummary = {};
    for (const [, n, word] of counts) {
      const key = KEY_NAMES[word as string] ?? (word as string);
      summary[key] = (summary[key] ?? 0) + Number(n);
    }
    return summary;
  }
  return undefined;
}

/** pytest-cov's `TOTAL ... 87%` line, as a number. */
/** The share of the tests done that a progress line of pytest ends with (`tests/test_a.py ..F   [ 40%]`). */
export function pytestProgressPercent(line: string): number | undefined {
  const m = /\[\s*(\d{1,3})%\]\s*$/.exec(line);
  return m ? Number(m[1]) : undefined;
}

export function parseCoverageTotal(output: string): number | undefined {
  const m = /^TOTAL\s+.*?(\d+(?:\.\d+)?)%\s*$/m.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** The `rootdir: ...` of pytest's header (node ids and JUnit files are relative to it). */
export function parseRootdir(output: string): string | undefined {
  const m = /^rootdir: (.+?)(?:, (?:configfile|inifile|testpaths|plugins): .*)?$/m.exec(output);
  return m?.[1]?.trim();
}

/**
 * A pytest target as given: a path, or a node id `tests/test_x.py::TestY::test_z[1]` whose path part
 * goes through the allowlist and whose rest is kept as written.
 */
export function splitNodeId(value: string): { file: string; rest?: string } {
  const i = value.indexOf("::");
  return i === -1 ? { file: value } : { file: value.slice(0, i), rest: value.slice(i + 2) };
}

/** Whether a `run` table (INI section or TOML table) names what to measure. */
const namesSource = (run: Record<string, unknown> | undefined): boolean =>
  run?.source !== undefined || run?.source_pkgs !== undefined;

/** Coverage's config files in its order, each read for its `[run] source` as coverage reads it. */
const COVERAGE_CONFIGS: [string, (text: string) => boolean][] = [
  [".coveragerc", (text) => namesSource(iniSection(text, "run"))],
  ["setup.cfg", (text) => namesSource(iniSection(text, "coverage:run"))],
  ["tox.ini", (text) => namesSource(iniSection(text, "coverage:run"))],
  ["pyproject.toml", (text) => namesSource(tomlTable(text, "tool", "coverage", "run"))],
];

/**
 * The coverage config that names what to measure (`source`/`source_pkgs`), in the folder coverage reads
 * it from (pytest's working directory), or undefined. A file linked from outside the root is not taken.
 */
export function findCoverageConfig(cwd: string, root: string): string | undefined {
  for (const [name, hasSource] of COVERAGE_CONFIGS) {
    const file = path.join(cwd, name);
    try {
      if (!isWithin(root, fs.realpathSync.native(file))) continue;
      if (hasSource(fs.readFileSync(file, "utf8"))) return file;
    } catch {
      // Absent.
    }
  }
  return undefined;
}

/**
 * Prints `[[entry point name, installed inside sys.prefix of a virtualenv], ...]` for every pytest
 * plugin the interpreter can see: those of the project's own environment, and those it inherits.
 */
export const LIST_PLUGINS_SCRIPT = [
  // The working directory first on sys.path could shadow the modules below with the project's own.
  "import sys",
  "sys.path = [p for p in sys.path if p not in ('', '.')]",
  "import json",
  "from importlib.metadata import distributions",
  "venv = sys.prefix != sys.base_prefix",
  "own = lambda d: venv and str(d.locate_file('')).startswith(sys.prefix + '/')",
  "print(json.dumps(sorted({(ep.name, own(d)) for d in distributions() for ep in d.entry_points if ep.group == 'pytest11'})))",
].join("\n");

export interface PluginChoice {
  /** Loaded with `-p`. */
  load: string[];
  /** Seen but not loaded: installed outside the project's environment. */
  skipped: string[];
}

/**
 * Which plugins go into the project's run: those installed in its own virtualenv, and pytest-cov when
 * coverage is asked; any other (system site-packages, the server's environment) stays out.
 */
export function choosePlugins(listed: [string, boolean][], coverage: boolean): PluginChoice {
  const load = new Set(listed.filter(([, own]) => own).map(([name]) => name));
  if (coverage) load.add("pytest_cov");
  const skipped = [...new Set(listed.map(([name]) => name))].filter((n) => !load.has(n));
  return { load: [...load].sort(), skipped: skipped.sort() };
}

/** Parses LIST_PLUGINS_SCRIPT's output; undefined when it is not that. */
export function parsePluginList(stdout: string): [string, boolean][] | undefined {
  try {
    const v = JSON.parse(stdout.trim()) as unknown;
    return Array.isArray(v) ? (v as [string, boolean][]) : undefined;
  } catch {
    return undefined;
  }
}
