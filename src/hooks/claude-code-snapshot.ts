/**
 * The Claude Code hook as a V8 start-up snapshot (`node --snapshot-blob B --build-snapshot` on the bundle of
 * this file, dist/bundle/hook-snapshot.cjs; src/hooks/hook-snapshot.ts builds it). Building runs the
 * modules' top-level code once and a few decisions, so the heap already holds what a decision loads
 * (secretlint and its rules, RE2JS, the CEL environments, the shipped regexes compiled); a hook process
 * then deserializes that heap instead of parsing and running ~1 MB of JavaScript. Only the code is frozen:
 * the policy sources, the project, the payload and the environment are read at run time, as by hook.cjs.
 *
 * A snapshot cannot hold WebAssembly, so the shell parser still loads on the first line that needs it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import { RE2JS } from "re2js";
import { useRe2Engine } from "../policy/cel.js";
import { findSecrets } from "../policy/secrets.js";
import { answerHook, runClaudeCodeHook } from "./claude-code.js";
import { refuseSnapshotWithWorkerThreads } from "../exec/worker-threads.js";
import { guardRegexpBacktracking } from "../regexp-guard.js";

/** Exit status of a snapshot whose bundle was rebuilt since: the installed command line falls back to hook.cjs. */
// Not exported: a snapshot's entry is a script, with no module object to export from.
const STALE_SNAPSHOT_EXIT = 3;

/** Decisions made while building, in a scratch project, so the heap keeps what they compiled. */
async function warm(): Promise<void> {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-hook-snapshot-"));
  try {
    const file = path.join(project, "app.py");
    fs.writeFileSync(file, "import os\n\nprint(os.getcwd())\n");
    const env = { CLAUDE_PROJECT_DIR: project };
    const payloads = [
      { tool_name: "Write", tool_input: { file_path: file, content: 'api_token = os.environ["TOKEN"]\n' } },
      { tool_name: "Edit", tool_input: { file_path: file, old_string: "getcwd", new_string: "sep" } },
      { tool_name: "Bash", tool_input: { command: "npm test" } },
    ];
    for (const p of payloads) await answerHook(JSON.stringify({ ...p, cwd: project }), env);
    await findSecrets('password = "hunter2hunter2"\n');
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

/** What identifies the bundle this snapshot was built from (a rebuild makes a new file). */
function identity(file: string): string {
  const st = fs.statSync(file);
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
}

if (!v8.startupSnapshot.isBuildingSnapshot()) {
  process.stderr.write("usage: node --snapshot-blob FILE --build-snapshot dist/bundle/hook-snapshot.cjs\n");
  process.exit(2);
}
refuseSnapshotWithWorkerThreads("the hook's snapshot");
useRe2Engine(RE2JS);
const bundleFile = __filename;
const builtFrom = identity(bundleFile);
void warm();
v8.startupSnapshot.setDeserializeMainFunction(() => {
  let current: string | undefined;
  try {
    current = identity(bundleFile);
  } catch {
    // the bundle is gone: stale as well
  }
  if (current !== builtFrom) {
    process.stderr.write(`mcp-code-quality: the hook snapshot is older than ${bundleFile}\n`);
    process.exit(STALE_SNAPSHOT_EXIT);
  }
  // As in claude-code-entry.ts: the process ends once it has answered.
  v8.setFlagsFromString("--liftoff-only");
  guardRegexpBacktracking();
  void runClaudeCodeHook();
});
