/** A dry run's verification: the fix steps and the type check on a scratch copy of the project, as the real run verifies. */
import path from "node:path";
import { ToolError } from "../../../errors.js";
import { type ToolContext } from "../../../engine/tool.js";
import { type FixRequest } from "../../../adapters/fixers.js";
import { type TypeCheckerAdapter, type TypeCheckOutcome } from "../../../adapters/type-checkers.js";
import { type Verification } from "../../../fix/transaction.js";
import { Allowlist, isWithin } from "../../../paths/allowlist.js";
import { projectRootOf } from "../../../paths/project-root.js";
import { scratchProject, type ScratchProject } from "../../../fix/scratch-project.js";
import { workerPool } from "../../../adapters/js/warm.js";
import { baselineNoteOf, typeCheckFields, verifyCheck, verifyingCheck } from "./verify.js";
import { fixSteps, NO_STEP_HOOKS, type FixAllSteps } from "./fix-steps.js";

/** What a dry run's verification found: the real run's type check and verdict, or why it could not run. */
export type DryRunVerification =
  | {
      typeCheck: ReturnType<typeof typeCheckFields>;
      verification: Verification;
      baselineNote?: string;
    }
  | { unverified: string };

/**
 * A dry run's verification, as the real run makes it: in a scratch copy of the project (scratch-project.ts)
 * the baseline check, the fixes and formatting written, then the type check; its findings, command and
 * notes put back in the project's paths. Nothing is written in the project; checkers run cold (no daemon
 * is left for the copy) and the warm workers the copy started are retired with it.
 */
export async function verifyDryRun(ctx: ToolContext, spec: FixAllSteps): Promise<DryRunVerification> {
  const checker = spec.checker as TypeCheckerAdapter;
  const { request } = spec;
  const root = ctx.allowlist.rootOf(request.target) ?? request.target;
  const project = projectRootOf(request.target, root);
  let copy: ScratchProject;
  try {
    copy = scratchProject(project);
  } catch (err) {
    return { unverified: err instanceof Error ? err.message : String(err) };
  }
  try {
    const sctx: ToolContext = {
      ...ctx,
      allowlist: new Allowlist([...ctx.allowlist.roots.effective, copy.root], ctx.allowlist.cwd),
      config: { ...ctx.config, warmCheckers: false },
    };
    const inCopy = (p: string | undefined) => (p && isWithin(project, p) ? copy.toScratch(p) : p);
    const target = copy.toScratch(request.target);
    const srequest: FixRequest = {
      ...request,
      target,
      files: request.files?.map((f) => (path.isAbsolute(f) ? (inCopy(f) as string) : f)),
      config: inCopy(request.config),
      dryRun: false,
      args: {
        ...request.args,
        path: target,
        ...(request.config && { config: inCopy(request.config) }),
        dry_run: false,
      },
    };
    const check = () => verifyingCheck(sctx, checker, target);
    const before = spec.baseline ? await check().catch(() => undefined) : undefined;
    await fixSteps(sctx, { ...spec, request: srequest }).steps(NO_STEP_HOOKS);
    const after = await check();
    const back = (o: TypeCheckOutcome | undefined): TypeCheckOutcome | undefined =>
      o && (JSON.parse(copy.realText(JSON.stringify(o))) as TypeCheckOutcome);
    const real = back(after) as TypeCheckOutcome;
    const baseline = back(before);
    return {
      ...verifyCheck(ctx, checker, request.target, real, baseline),
      baselineNote: baselineNoteOf(ctx, checker, request.target, baseline),
    };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { unverified: copy.realText(err.message) };
  } finally {
    workerPool(ctx).retireUnder(copy.root);
    copy.remove();
  }
}
