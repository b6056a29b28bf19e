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
// The Markdown link checker (~80 modules the links check imports when it first runs).
import "./adapters/markdown/checker.js";
import { run } from "./main.js";
import { RE2JS } from "re2js";
import { useRe2Engine } from "./policy/cel.js";
import { compileBundle, compilePolicy } from "./policy/compile.js";
import { findSecrets } from "./policy/secrets.js";
import * as YAML from "yaml";
import { provideYaml } from "./yaml-lazy.js";
import { refuseSnapshotWithWorkerThreads } from "./exec/worker-threads.js";
import { rearmTimers, warmUpCheck } from "./snapshot-warm-up.js";

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
refuseSnapshotWithWorkerThreads("the command line's snapshot");
useRe2Engine(RE2JS);
// The YAML parser in the heap: configs RuboCop, golangci-lint and pre-commit read are parsed at once (loading
// it at run time took ~10-25 ms of a fresh check of rake or cobra).
provideYaml(YAML);
// Both ways a hook compiles them (src/hooks/pre-commit.ts: all at once, or lazily and trusted), so the same
// compiled conditions are found.
void compileBundle()
  .then(() => compileBundle({ lazy: true }))
  .then((bundle) => bundle.data.policies.forEach((p) => compilePolicy(p, true)))
  .then(() => findSecrets('password = "hunter2hunter2"\n'))
  // Only speed is lost: a hook compiles what it needs when it runs.
  .catch(() => {});
const bundleFile = __filename;
const builtFrom = identity(bundleFile);
const entry = codePath("cli.js");
// A check run once, so that the functions a check runs are compiled in the heap, and then the tools a check
// makes first made ahead (src/snapshot-warm-up.ts); the heap is written when the build's event loop is empty, after it.
void warmUpCheck().catch((err: unknown) => {
  process.stderr.write(`the command line's snapshot: warm-up: ${String(err)}\n`);
  process.exit(1);
});
v8.startupSnapshot.setDeserializeMainFunction(() => {
  rearmTimers();
  // With a snapshot, the command's arguments start at argv[1] (there is no script).
  const argv = process.argv.slice(1);
  if (identity(bundleFile) !== builtFrom) {
    // Rebuilt since (or moved): the modules as they are now decide, on the same arguments.
    const r = spawnSync(process.execPath, [entry, ...argv], { stdio: "inherit" });
    process.exit(r.status ?? 1);
  }
  run(argv, entry);
});
