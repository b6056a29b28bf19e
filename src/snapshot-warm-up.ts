/**
 * A check run once while the command line's snapshot is built (src/cli-snapshot.ts). V8 keeps in the heap it
 * writes the bytecode of every function that ran, and compiles the rest on their first call in each process
 * that starts from it: a fresh check then compiles only what the warm-up did not reach (measured in
 * docs/check.md, "Start-up").
 *
 * What it leaves behind is harmless by construction:
 * - it runs in a temporary folder of its own, deleted after, with `--sandbox off` (no sandbox probe
 *   remembered), its cache variables pointed into that folder (the result cache on, as a check runs: its
 *   code is the larger part of what is compiled);
 * - its tool is a stand-in `ruff` there (a shell script answering as ruff 0.17 does), never a tool of the
 *   machine, so nothing of the machine's tools is remembered, and no embedded ruff thread is started (a
 *   snapshot that loaded node:worker_threads starts no thread: src/exec/worker-threads.ts);
 * - what a run makes on first use and must be each process's own is made again: the child marks (the
 *   server's token, src/exec/child-groups.ts), the build id (read before `npm run build` records this
 *   build's), the tree scan's listings, walks and store are forgotten, and the async storages turned off
 *   (Node writes no snapshot with promise hooks set: src/async-scope.ts);
 * - the variables it changed are put back, and the check is called, not `main`: no V8 flag is set (a blob
 *   loads only with the flags it was built with) and no exit listener is added;
 * - Node keeps the list of an unref'd timer after the timer is cleared, until the list's time comes
 *   (lib/internal/timers.js: "we only delete refed lists"), and with it the time the next list expires;
 *   the check's (the engine's 2-second wait, the result cache's 30-second save) are in the heap, and a
 *   process from it arms no timer until one sooner than theirs comes: `rearmTimers` is called first.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { disableAsyncScopes } from "./async-scope.js";
import { runCheckCommand, type CheckIo } from "./check/command.js";
import { forgetBuildId } from "./cache/build-id.js";
import { forgetChildMarks, liveChildGroups } from "./exec/child-groups.js";
import { makeToolsAhead } from "./mcp/tools/index.js";
import { sharedTree } from "./paths/tree-scan.js";

/** What ruff 0.17's `check --output-format json-lines` prints for `import os` in a.py (one finding). */
function findingLine(file: string): string {
  return JSON.stringify({
    cell: null,
    code: "F401",
    end_location: { column: 10, row: 1 },
    filename: file,
    fix: {
      applicability: "safe",
      edits: [{ content: "", end_location: { column: 1, row: 2 }, location: { column: 1, row: 1 } }],
      message: "Remove unused import: `os`",
    },
    location: { column: 8, row: 1 },
    message: "`os` imported but unused",
    name: "unused-import",
    noqa_row: 1,
    severity: "error",
    url: "https://docs.astral.sh/ruff/rules/unused-import",
  });
}

/** Single-quoted for sh. */
const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The stand-in: its version, the files `--show-files` lists, one finding for `check`, nothing to format. */
function standInRuff(project: string): string {
  const file = path.join(project, "a.py");
  return [
    "#!/bin/sh",
    'case " $* " in',
    '  *" --version "*) echo "ruff 0.17.6" ;;',
    `  *" --show-files "*) printf '%s\\n' ${quoted(file)} ${quoted(path.join(project, "pyproject.toml"))} ;;`,
    `  " check "*) printf '%s\\n' ${quoted(findingLine(file))}; exit 1 ;;`,
    '  " format "*) echo "1 file already formatted" >&2 ;;',
    "esac",
    "exit 0",
    "",
  ].join("\n");
}

/** A sink for the check's output: the warm-up's report is read by no one. */
const sink = (): CheckIo["stdout"] => ({ isTTY: false, write: () => true });

/**
 * Runs the warm-up checks (the report and `--json` of a Python project with one finding), undoes what
 * they left, and makes the tools a check makes first ahead. Resolves to their exit codes (1 each: the finding); a failed run only loses speed. Markdown
 * links are not run: undici's fetch leaves a FinalizationRegistry that Node cannot write into a snapshot.
 */
export async function warmUpCheck(): Promise<number[]> {
  const codes: number[] = [];
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-snapshot-warm-up-"));
  } catch {
    // No temporary folder to warm up in: the blob is built without it (only speed is lost).
    return codes;
  }
  const project = path.join(dir, "project");
  const saved = { PATH: process.env.PATH, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  try {
    fs.mkdirSync(path.join(dir, "bin"));
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, "pyproject.toml"),
      '[project]\nname = "w"\n\n[tool.ruff]\nline-length = 100\n',
    );
    fs.writeFileSync(path.join(project, "a.py"), "import os\n");
    fs.writeFileSync(path.join(dir, "bin", "ruff"), standInRuff(project), { mode: 0o755 });
    process.env.PATH = `${path.join(dir, "bin")}:/usr/bin:/bin`;
    process.env.XDG_CACHE_HOME = path.join(dir, "cache");
    const io: CheckIo = { stdout: sink(), stderr: sink(), env: { ...process.env }, cwd: project };
    const argv = [
      project,
      "--only",
      "ruff",
      "--sandbox",
      "off",
      "--result-cache",
      "true",
      "--audit-log",
      path.join(dir, "audit.jsonl"),
    ];
    for (const format of [[], ["--json"]])
      codes.push(await runCheckCommand([...argv, ...format], io).catch(() => -1));
  } catch {
    // Its project could not be written (a full or read-only temporary folder): the blob is built with what
    // ran, if anything (only speed is lost).
  } finally {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    fs.rmSync(dir, { recursive: true, force: true });
    disableAsyncScopes();
    forgetChildMarks();
    forgetBuildId();
    sharedTree.forget();
  }
  if (liveChildGroups().length) throw new Error("the snapshot's warm-up left a child process running");
  // Last, the tools a check makes first (src/check/command.ts, with the default `--retain-traces off`): made
  // before the warm-up, its check took them, and every check from the snapshot made its own (~3 ms).
  makeToolsAhead(["core"], { retainTraces: "off" });
  return codes;
}

/**
 * Called first in each process from the snapshot: a timer that fires at once runs Node's pass over the timer
 * lists, which arms the event loop's timer for the earliest list, stale ones included. Without it a check
 * whose only hold on the event loop was its keep-alive interval (waiting on a warm ESLint or RuboCop worker)
 * ended at once, silently, with exit code 0.
 */
export function rearmTimers(): void {
  setTimeout(() => {}, 0);
}
