/**
 * The command line as a V8 start-up snapshot (`node --snapshot-blob B --build-snapshot` on the bundle of this
 * file, dist/bundle/cli-snapshot.cjs, every package inside; src/cli-snapshot-blob.ts builds it). Building
 * loads what a `check` loads (the engine, every adapter, the tools and their schemas), so a fresh `check`
 * deserializes a heap instead of compiling and running ~6 MB of JavaScript. Only code is frozen: nothing of
 * the environment, the working folder or the project is read while building (no module reads them when it
 * loads; tokens and probes are made on first use).
 *
 * bin/mcp-code-quality runs it for `check` when a blob for this Node exists; a blob older than its bundle
 * (the package was rebuilt since) runs dist/cli.js on the same arguments instead.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import v8 from "node:v8";
import { codePath } from "./package-root.js";

// Module loads that a `check` would otherwise do at run time (src/main.ts, src/check/command.ts): in the
// bundle they are plain function calls, made here once, before the heap is written.
import "./check/daemon/flags.js";
import "./check/command.js";
import "./check/changed-files-tool.js";
import "./engine/engine.js";
import "./log.js";
import "./mcp/tools/index.js";
import "./hooks/cli.js";
import "./hooks/pre-commit.js";
import { run } from "./main.js";
import { makeToolsAhead } from "./mcp/tools/index.js";
import { RE2JS } from "re2js";
import { useRe2Engine } from "./policy/cel.js";
import { compileBundle, compilePolicy } from "./policy/compile.js";
import { findSecrets } from "./policy/secrets.js";
import * as YAML from "yaml";
import ignore from "ignore";
import picomatch from "picomatch";
import { parse as parseToml } from "smol-toml";
import { provideYaml } from "./yaml-lazy.js";

function warmParsers(): void {
  YAML.parse(
    [
      "default_language_version:",
      "  python: python3",
      "ci:",
      "  skip: [pylint]",
      "repos:",
      "  - repo: https://github.com/astral-sh/ruff-pre-commit",
      '    rev: "v0.1.0"',
      "    hooks:",
      "      - id: ruff",
      "        args: [--fix, '--exit-non-zero-on-fix']",
      "        exclude: &fixtures tests(/\\w*)*/functional/|tests/input|doc/data/messages",
      "      - id: ruff-format",
      "  - repo: local",
      "    hooks:",
      "      - id: pylint",
      "        name: pylint",
      "        entry: pylint",
      "        language: system",
      "        types: [python]",
      "        exclude: *fixtures",
      '        additional_dependencies: ["a==1", b]',
      "        require_serial: true",
      "",
    ].join("\n"),
  );
  parseToml(
    [
      "[project]",
      'name = "p"',
      'requires-python = ">=3.10"',
      'dependencies = ["a>=1", "b"]',
      "[tool.ruff]",
      "line-length = 115",
      'extend-exclude = ["tests/**/data/", "tests/input/"]',
      'lint.extend-select = ["B", "E"]',
      "[tool.ruff.lint.per-file-ignores]",
      '"tests/*" = ["D"]',
      "[tool.ruff.lint.pydocstyle]",
      'convention = "pep257"',
      "",
    ].join("\n"),
  );
  const rules = ignore().add("*.py[cod]\n/build/\n!keep.pyc\n# a comment\ndocs/_build\n.venv*\n");
  for (const p of ["a/b.pyc", "build/", "src/x.py", "docs/_build/", "keep.pyc", ".venv2/"]) rules.ignores(p);
  const glob = picomatch("tests/**/data/", { dot: true });
  for (const p of ["tests/a/data/", "src/x.py"]) glob(p);
}

/** What identifies the bundle this snapshot was built from (a rebuild makes a new file). */
function identity(file: string): string | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : undefined;
}

if (!v8.startupSnapshot.isBuildingSnapshot()) {
  process.stderr.write("usage: node --snapshot-blob FILE --build-snapshot dist/bundle/cli-snapshot.cjs\n");
  process.exit(2);
}
// The policies' engine in the heap (a snapshot may not load a package from node_modules while it is built),
// the shipped conditions compiled and their RE2 patterns with them, secretlint's rules set up: what a
// pre-commit hook would otherwise compile on every commit.
useRe2Engine(RE2JS);
// The YAML parser in the heap: configs RuboCop, golangci-lint and pre-commit read are parsed at once (loading
// it at run time took ~10-25 ms of a fresh check of rake or cobra).
provideYaml(YAML);
// The parsers a fresh check runs on most projects, run once on small made-up texts: the heap keeps the
// bytecode compiled for them, so a check's first YAML, TOML, .gitignore and glob compile nothing of it
// (a first parse of pylint's pre-commit config: ~17 ms from the snapshot, ~10 ms once warmed). Pure
// calls: nothing of the environment is read and nothing of ours remembers them.
warmParsers();
// Both ways a hook compiles them (src/hooks/pre-commit.ts: all at once, or lazily and trusted), so the same
// compiled conditions are found.
void compileBundle()
  .then(() => compileBundle({ lazy: true }))
  .then((bundle) => bundle.data.policies.forEach((p) => compilePolicy(p, true)))
  .then(() => findSecrets('password = "hunter2hunter2"\n'))
  // Only speed is lost: a hook compiles what it needs when it runs.
  .catch(() => {});
// The tools a `check` makes first (src/check/command.ts, with the default `--retain-traces off`).
makeToolsAhead(["core"], { retainTraces: "off" });
const bundleFile = __filename;
const builtFrom = identity(bundleFile);
const entry = codePath("cli.js");
v8.startupSnapshot.setDeserializeMainFunction(() => {
  // With a snapshot, the command's arguments start at argv[1] (there is no script).
  const argv = process.argv.slice(1);
  if (identity(bundleFile) !== builtFrom) {
    // Rebuilt since (or moved): the modules as they are now decide, on the same arguments.
    const r = spawnSync(process.execPath, [entry, ...argv], { stdio: "inherit" });
    process.exit(r.status ?? 1);
  }
  run(argv, entry);
});
