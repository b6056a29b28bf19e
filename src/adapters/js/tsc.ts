/**
 * tsc for `type_check`: the project's own TypeScript (else the bundled 6.x) in the warm worker; a
 * project whose own TypeScript is 7 (the native compiler, no JS API) runs its `tsc` CLI instead.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { combinedOutput, displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import { refuseLinksLeaving } from "../../paths/outside-links.js";
import { registerTypeChecker, type TypeCheckOutcome, type TypeCheckRequest } from "../type-checkers.js";
import {
  bundledPackage,
  directoryOf,
  findUp,
  loadableEntry,
  majorVersion,
  projectPackage,
  toolNote,
  type ToolModule,
} from "./project.js";
import { parseTscOutput } from "./tsc-output.js";
import { declaredButMissing, notInstalledError, packagesTscMisses } from "./dependencies.js";
import type { Finding } from "../../findings/model.js";
import { tscFinding, type TscParams, type TscReply } from "./tsc-wire.js";
import { produceCodeCaches } from "./code-cache-server.js";
import { warmRequest } from "./warm.js";
import { runnableTsconfigs, scriptTsconfigs, type RunnableTsconfig } from "./tsc-scripts.js";
import { mergeTscOutcomes } from "./tsc-merge.js";
import { referencedTsconfigs } from "./tsconfig-references.js";
import { readPackageJson } from "../project-configs.js";

/** What each tsconfig extends, as the worker last reported it: changes there restart the worker too. */
const extendedConfigs = new Map<string, string[]>();

/** The tsconfig a request means: the `config` argument, a tsconfig given as path, or the nearest one. */
function tsconfigFor(ctx: ToolContext, req: Pick<TypeCheckRequest, "target" | "config">): string {
  if (req.config) return req.config;
  if (/^tsconfig.*\.json$/.test(path.basename(req.target))) return req.target;
  const allowedRoot = ctx.allowlist.rootOf(req.target) ?? req.target;
  const found = findUp(["tsconfig.json"], directoryOf(req.target), allowedRoot);
  if (!found)
    throw new ToolError(
      "invalid_input",
      `no tsconfig.json in ${directoryOf(req.target)} or above it (inside the allowed paths); pass config`,
    );
  return found;
}

function tscBin(mod: ToolModule): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(mod.dir, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === "string" ? pkg.bin : (pkg.bin?.tsc ?? "bin/tsc");
  return path.join(mod.dir, bin);
}

/**
 * tsc's diagnostics about packages the project declares but has not installed (`TS2688 Cannot find type
 * definition file for 'node'` with @types/node in devDependencies) are the missing install, not type errors:
 * the check stops there and says to install them.
 */
function refuseMissingInstall(
  findings: readonly Finding[],
  root: string,
  stopAt: string,
  command: string,
): void {
  const missing = declaredButMissing(packagesTscMisses(findings), root, stopAt);
  if (!missing) return;
  const first = findings.find((f) => f.rule_id === "TS2688" || f.rule_id === "TS2307");
  const said = first
    ? `${path.relative(root, first.file) || first.file}: ${first.rule_id} ${first.message}`
    : "";
  throw notInstalledError("tsc", missing, said, { command });
}

/** TypeScript 7: its native `tsc`, spawned through the bounded runner. */
async function checkWithCli(
  ctx: ToolContext,
  mod: ToolModule,
  configFile: string,
): Promise<TypeCheckOutcome> {
  const root = path.dirname(configFile);
  const args = ["--noEmit", "--pretty", "false", "-p", configFile];
  const command = displayCommand("tsc", args);
  const run = await ctx.run({ program: tscBin(mod), args, cwd: root });
  const diagnostics = parseTscOutput(run.stdout, root);
  const output = combinedOutput(run.stdout, run.stderr);
  if (run.returncode !== 0 && diagnostics.length === 0)
    throw new ToolError("tool_error", `tsc failed (exit ${run.returncode}) without diagnostics; see output`, {
      command,
      returncode: run.returncode,
      output,
      truncated: run.truncated,
    });
  const findings = diagnostics.map((d) => tscFinding(d, configFile));
  refuseMissingInstall(findings, root, ctx.allowlist.rootOf(configFile) ?? root, command);
  return {
    findings,
    command,
    returncode: run.returncode,
    output,
    truncated: run.truncated,
    passed: run.returncode === 0,
    version: mod.version,
    notes: [
      toolNote(mod),
      "TypeScript 7 has no JavaScript compiler API: ran its native tsc (no warm worker)",
      `config: ${configFile}`,
    ],
    reads: { unknown: "TypeScript 7's native tsc does not say which configs and sources it read" },
  };
}

/** The TypeScript a tsconfig's check runs: the project's own (its native tsc from 7 on), else the bundled one. */
function typescriptFor(ctx: ToolContext, configFile: string): { mod: ToolModule; cli: boolean } {
  const root = path.dirname(configFile);
  const allowedRoot = ctx.allowlist.rootOf(configFile) ?? root;
  const own = projectPackage("typescript", root, allowedRoot);
  if (own && majorVersion(own.version) >= 7) return { mod: own, cli: true };
  return { mod: own?.entry ? own : bundledPackage("typescript"), cli: false };
}

/** The tsconfigs a request runs: the one found for it, and those the project's scripts type-check with. */
interface TscPlan {
  primary: string;
  /**
   * The scripts' tsconfigs (only without `config`: a tsconfig the caller names is the one checked), then
   * every tsconfig those reference, as `tsc -b` checks them.
   */
  others: RunnableTsconfig[];
  /** The scripts' tsconfigs that cannot run, and why (a warning each). */
  skipped: string[];
  /** Referenced tsconfigs outside the allowed paths: not checked (a warning each). */
  outside: string[];
}

async function tscPlan(ctx: ToolContext, req: Pick<TypeCheckRequest, "target" | "config">): Promise<TscPlan> {
  const primary = tsconfigFor(ctx, req);
  const allowed = (canonical: string) => ctx.allowlist.rootOf(canonical) !== undefined;
  if (req.config) return { primary, ...referencedRuns([primary], [], allowed), skipped: [] };
  const project = path.dirname(primary);
  const found = await scriptTsconfigs(readPackageJson(project)?.scripts, project);
  const { run, skipped } = runnableTsconfigs(found, primary, project, allowed);
  return { primary, ...referencedRuns([primary, ...run.map((r) => r.file)], run, allowed), skipped };
}

/**
 * `runs` followed by every tsconfig the `checked` ones reference (tsconfig-references.ts), as `tsc -b`
 * checks them: each once, inside the allowed paths (links followed); those outside them are listed, each
 * once, for a note (the sandbox does not show them, so nothing checks them).
 */
function referencedRuns(
  checked: readonly string[],
  runs: readonly RunnableTsconfig[],
  allowed: (canonical: string) => boolean,
): { others: RunnableTsconfig[]; outside: string[] } {
  const others = [...runs];
  const outside: string[] = [];
  const known = new Set(checked.map((f) => fs.realpathSync.native(f)));
  for (const file of checked.flatMap(referencedTsconfigs)) {
    const canonical = fs.realpathSync.native(file);
    if (known.has(canonical)) continue;
    known.add(canonical);
    if (allowed(canonical)) others.push({ file: canonical, scripts: [], referenced: true });
    else outside.push(canonical);
  }
  return { others, outside };
}

/**
 * Which TypeScript each tsconfig of a request runs with, for the result cache: the configs (every one run),
 * and for each the TypeScript's origin, version and the project's folder of it.
 */
async function tscIdentity(
  ctx: ToolContext,
  req: Pick<TypeCheckRequest, "target" | "config">,
): Promise<unknown> {
  let plan: TscPlan;
  try {
    plan = await tscPlan(ctx, req);
  } catch {
    return null; // the run fails the same way, and a failure is not kept
  }
  // Relative to the project, so that another checkout of it shares the key.
  const project = path.dirname(plan.primary);
  const relative = (p: string) => path.relative(project, p).split(path.sep).join("/");
  return [plan.primary, ...plan.others.map((o) => o.file)].map((configFile) => {
    const { mod, cli } = typescriptFor(ctx, configFile);
    return {
      config: relative(configFile),
      typescript: mod.source,
      version: mod.version,
      cli,
      dir: mod.source === "project" ? relative(mod.dir) : null,
    };
  });
}

/**
 * Every tsconfig of the plan, one run each, as one outcome (tsc-merge.ts): commander.js's `tsc -p
 * tsconfig.ts.json` (a script) finds errors its lenient tsconfig.json does not. The scripts' tsconfigs that
 * cannot run are said as warnings.
 */
async function tscCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const plan = await tscPlan(ctx, req);
  const runs = [await tscRun(ctx, plan.primary)];
  for (const other of plan.others) runs.push(await tscRun(ctx, other.file));
  const project = path.dirname(plan.primary);
  const found = /^tsconfig.*\.json$/.test(path.basename(req.target)) ? "the path" : "nearest";
  const ran = [
    `${path.basename(plan.primary)} (${found})`,
    ...plan.others.map(
      (o) => `${path.relative(project, o.file)} (${o.referenced ? "referenced" : o.scripts.join(", ")})`,
    ),
  ];
  const outcome = mergeTscOutcomes(
    runs,
    `tsconfigs run: ${ran.join(", ")}; a diagnostic several of them report is shown once`,
  );
  const warnings = [
    ...plan.skipped.map((s) => `warning: the project's scripts type-check with ${s}`),
    ...plan.outside.map(
      (f) =>
        `warning: ${f} is a referenced project outside the allowed paths: not type-checked (add its folder with --allowed-paths)`,
    ),
  ];
  return warnings.length ? { ...outcome, notes: [...outcome.notes, ...warnings] } : outcome;
}

async function tscRun(ctx: ToolContext, configFile: string): Promise<TypeCheckOutcome> {
  const root = path.dirname(configFile);
  // tsc compiles symlinked sources it finds under the project, wherever they lead.
  refuseLinksLeaving(root, ctx.allowlist);
  const { mod, cli } = typescriptFor(ctx, configFile);
  if (cli) return checkWithCli(ctx, mod, configFile);
  const command = displayCommand("tsc", ["--noEmit", "-p", configFile]);
  const params: TscParams = { entry: loadableEntry(mod), configFile };
  const { result, note } = await warmRequest<TscReply>(
    ctx,
    {
      tool: "tsc",
      root,
      // Each file once: the runs of a root's tsconfigs share its worker, and a list that differs restarts it.
      watch: [
        ...new Set([
          ...fs
            .readdirSync(root)
            .filter((f) => /^tsconfig.*\.json$/.test(f))
            .map((f) => path.join(root, f)),
          configFile,
          path.join(root, "package.json"),
          path.join(mod.dir, "package.json"),
        ]),
      ],
      // Learnt from a run: naming them later does not restart the worker, a change of one does.
      loaded: extendedConfigs.get(configFile) ?? [],
    },
    "check",
    params,
    command,
  );
  extendedConfigs.set(configFile, result.extendedConfigs);
  if (result.codeCacheMissed?.length) await produceCodeCaches(ctx, result.codeCacheMissed);
  const findings = result.diagnostics.map((d) => tscFinding(d, configFile));
  refuseMissingInstall(findings, root, ctx.allowlist.rootOf(configFile) ?? root, command);
  return {
    findings,
    command,
    passed: !findings.some((f) => f.severity === "error"),
    version: mod.version,
    notes: [toolNote(mod), `config: ${configFile} (${result.rootFiles} root files)`, note],
    reads: {
      configs: [configFile, ...result.extendedConfigs],
      sources: result.sourceFiles ?? [],
      dirs: result.includeDirs ?? [],
    },
  };
}

registerTypeChecker({
  name: "tsc",
  languages: ["typescript", "javascript"],
  // `tsc examples/pizza` (a node script): TS6231, it resolves no file without one of its extensions.
  scripts: false,
  // A TypeScript file, or a directory with a tsconfig.json.
  claims: (target) =>
    /\.[cm]?tsx?$/.test(target) || fs.existsSync(path.join(directoryOf(target), "tsconfig.json")),
  check: tscCheck,
  identity: tscIdentity,
});
