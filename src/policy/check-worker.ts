/**
 * The policy checks off the server's event loop: a worker thread that compiles the bundle it is given (the
 * same sources, so the same hash, as the server's) and answers command, edit and diff checks. A check that
 * runs past its deadline is cut off by terminating this thread (worker-pool.ts): no condition, regex or
 * diff can hold up the server's other calls.
 */
import { parentPort } from "node:worker_threads";
import path from "node:path";
import { checkCommand, checkDiff, checkEdit, type CheckSite, type EditCheckOptions } from "./checks.js";
import type { BundleSpec } from "./bundle-spec.js";
import { bundleOfSpec } from "./compiled-bundles.js";
import type { EditInput } from "./edit-context.js";

export type { BundleSpec };

export type WorkerRequest =
  | {
      id: number;
      op: "command";
      spec: BundleSpec;
      input: { command?: string; argv?: string[] };
      site: CheckSite;
    }
  | { id: number; op: "edit"; spec: BundleSpec; edit: EditInput; options: EditCheckOptions }
  | {
      id: number;
      op: "diff";
      spec: BundleSpec;
      edit: EditInput & { diff: string };
      base: string;
      options: EditCheckOptions & { roots: string[] };
    };

export type WorkerReply =
  { id: number; ok: true; outcome: unknown } | { id: number; ok: false; error: string };

const relativeTo = (roots: readonly string[]) => (absolute: string) => {
  const root = roots
    .filter((r) => absolute === r || absolute.startsWith(r + path.sep))
    .sort((a, b) => b.length - a.length)[0];
  return root
    ? { path: path.relative(root, absolute).split(path.sep).join("/"), outside: false }
    : { path: absolute, outside: true };
};

async function answer(request: WorkerRequest): Promise<unknown> {
  const bundle = await bundleOfSpec(request.spec);
  if (request.op === "command") return checkCommand(bundle, request.input, request.site);
  if (request.op === "edit") return checkEdit(bundle, request.edit, request.options);
  return checkDiff(bundle, request.edit, request.base, relativeTo(request.options.roots), request.options);
}

parentPort?.on("message", (request: WorkerRequest) => {
  answer(request).then(
    (outcome) => parentPort?.postMessage({ id: request.id, ok: true, outcome } satisfies WorkerReply),
    (err: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
      } satisfies WorkerReply),
  );
});
