/**
 * `check`'s first step in a fresh process (bin/mcp-code-quality runs it before the command line's
 * snapshot; scripts/bundle-cli.mjs bundles it alone into dist/bundle/check-replay.cjs): when the last run
 * of this command line in this folder kept its answer and everything that answer came from is as it was,
 * prints it and exits with its code, appending its audit entries again (marked `replayed`). Anything else
 * (no answer kept, a file changed, a variable set, an error of any kind) exits with MISS and prints
 * nothing: the command line then runs the check.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { AuditLog } from "../../engine/audit-log.js";
import {
  answersDir,
  firstChanged,
  memoKey,
  memoName,
  parseMemo,
  readMemoFile,
  replayMode,
  streamsShape,
  type AnswerMemo,
} from "./memo-format.js";

/** Exit code meaning "no answer to replay": never one of check's own (0-3, 130). */
export const MISS = 75;

/** Why the answer cannot be replayed, or the memo to replay. */
export function replayable(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  buildIdFile: string,
): AnswerMemo | string {
  if (replayMode(env) === "off") return "replay turned off";
  let buildId: unknown;
  try {
    buildId = (JSON.parse(readFileSync(buildIdFile, "utf8")) as { id?: unknown }).id;
  } catch {
    return "no build id";
  }
  if (typeof buildId !== "string") return "no build id";
  const key = memoKey(buildId, cwd, args);
  const text = readMemoFile(path.join(answersDir(env), memoName(key)));
  const memo = text === undefined ? undefined : parseMemo(text);
  if (!memo || memo.key !== key) return "nothing kept";
  if (memo.node !== process.execPath) return `another Node: ${memo.node}`;
  if (memo.streams !== streamsShape(process.stdout, process.stderr)) return "other output streams";
  const changed = firstChanged(memo, env);
  return changed ? `changed: ${changed}` : memo;
}

/** Prints the memo's answer and appends its audit entries again; resolves to its exit code. */
export function replay(memo: AnswerMemo): number {
  if (memo.audit) {
    const log = new AuditLog(memo.audit.file, memo.audit.maxBytes);
    const now = new Date().toISOString();
    for (const line of memo.audit.lines) log.appendLine(`{"timestamp":${JSON.stringify(now)},${line}\n`);
  }
  for (const [which, text] of memo.output) (which === 1 ? process.stdout : process.stderr).write(text);
  return memo.code;
}

/** The bundle's entry: argv is `check ARGS...`. */
export function main(): void {
  const miss = () => process.exit(MISS);
  process.on("uncaughtException", miss);
  process.on("unhandledRejection", miss);
  // A reader that went away (`| head`) is not an error of the answer.
  process.stdout.on("error", () => {});
  const [word, ...args] = process.argv.slice(2);
  if (word !== "check") return miss();
  // This script is dist/bundle/check-replay.cjs; the build's id is dist/build-id.json.
  const script = process.argv[1] ?? "";
  const found = replayable(
    args,
    process.env,
    process.cwd(),
    path.join(path.dirname(script), "..", "build-id.json"),
  );
  if (typeof found === "string") {
    if (replayMode(process.env) === "explain")
      process.stderr.write(`mcp-code-quality check: no replay: ${found}\n`);
    return miss();
  }
  if (replayMode(process.env) === "explain") process.stderr.write("mcp-code-quality check: replayed\n");
  process.exitCode = replay(found);
}
