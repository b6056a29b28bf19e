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
import { scriptTsconfigs } from "./tsc-scripts.js";
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

/** Which TypeScript a request runs, for the result cache: origin, version, and the project's folder of it. */
function tscIdentity(ctx: ToolContext, req: Pick<TypeCheckRequest, "target" | "config">): unknown {
  let configFile: string;
  try {
    configFile = tsconfigFor(ctx, req);
  } catch {
    return null; // the run fails the same way, and a failure is not kept
  }
  const { mod, cli } = typescriptFor(ctx, configFile);
  // Relative to the project, so that another checkout of it shares the key.
  const project = path.dirname(configFile);
  return {
    typescript: mod.source,
    version: mod.version,
    cli,
    dir: mod.source === "project" ? path.relative(project, mod.dir).split(path.sep).join("/") : null,
  };
}

/**
 * The tsconfigs the project's scripts type-check with that this run did not (tsc-scripts.ts), as a warning:
 * the nearest tsconfig.json's verdict is not `npm run check`'s. Undefined when `config` was given or none.
 */
function otherScriptConfigs(req: TypeCheckRequest, configFile: string): string | undefined {
  if (req.config) return undefined;
  const dir = path.dirname(configFile);
  const others = scriptTsconfigs(readPackageJson(dir)?.scripts).filter(
    (s) => path.resolve(dir, s.config) !== configFile,
  );
  if (others.length === 0) return undefined;
  const named = [...new Set(others.map((o) => `${o.config} (${o.script})`))].join(", ");
  return `warning: the project's scripts type-check with ${named}: this ran ${path.basename(configFile)}; pass config to check with one of them`;
}

async function tscCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const outcome = await tscRun(ctx, req);
  const note = otherScriptConfigs(req, tsconfigFor(ctx, req));
  return note ? { ...outcome, notes: [...(outcome.notes ?? []), note] } : outcome;
}

async function tscRun(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const configFile = tsconfigFor(ctx, req);
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
      watch: [
        ...fs
          .readdirSync(root)
          .filter((f) => /^tsconfig.*\.json$/.test(f))
          .map((f) => path.join(root, f)),
        configFile,
        path.join(root, "package.json"),
        path.join(mod.dir, "package.json"),
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
