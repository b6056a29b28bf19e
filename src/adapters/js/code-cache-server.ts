/**
 * The server's side of the workers' V8 code cache (workers/code-cache.ts): after a worker reports a bundle it
 * compiled without cached data, the server's producer compiles it (without running it) and writes the data
 * under the hash of its source, in a sandbox where that cache folder is the only thing it may write. Workers
 * only read the folder. Once per bundle per server process.
 */
import path from "node:path";
import type { ToolContext } from "../../engine/tool.js";
import { runBounded } from "../../exec/runner.js";
import { installDir, v8CodeCacheDir } from "../../exec/sandbox/host.js";
import { codePath } from "../../package-root.js";

const asked = new Set<string>();

export async function produceCodeCaches(ctx: ToolContext, files: readonly string[]): Promise<void> {
  const todo = files.filter((f) => path.isAbsolute(f) && !asked.has(f));
  if (todo.length === 0) return;
  for (const f of todo) asked.add(f);
  try {
    await runBounded({
      program: process.execPath,
      // The workers' own V8 flags (worker-pool.ts): V8 rejects data made under others.
      args: [
        `--max-old-space-size=${ctx.config.workerMaxHeapMb}`,
        codePath("adapters", "js", "workers", "code-cache-produce.js"),
        ...todo,
      ],
      cwd: installDir(),
      timeoutMs: 120_000,
      maxOutputBytes: 16_384,
      sandbox: {
        mode: ctx.config.sandbox,
        request: { kind: "read", roots: ctx.allowlist.roots.effective, caches: [v8CodeCacheDir()] },
      },
    });
  } catch {
    // No cache: the next fresh worker compiles from source, as before.
  }
}
