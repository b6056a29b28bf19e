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
import { tscFinding, type TscParams, type TscReply } from "./tsc-wire.js";
import { produceCodeCaches } from "./code-cache-server.js";
import { warmRequest } from "./warm.js";

/** What each tsconfig extends, as the worker last reported it: changes there restart the worker too. */
const extendedConfigs = new Map<string, string[]>();

/** The tsconfig a request means: the `config` argument, a tsconfig given as path, or the nearest one. */
function tsconfigFor(ctx: ToolContext, req: TypeCheckRequest): string {
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
  return {
    findings: diagnostics.map((d) => tscFinding(d, configFile)),
    command,
    returncode: run.returncode,
    output,
    truncated: run.truncated,
    passed: run.returncode === 0,
    notes: [
      toolNote(mod),
      "TypeScript 7 has no JavaScript compiler API: ran its native tsc (no warm worker)",
      `config: ${configFile}`,
    ],
  };
}

async function tscCheck(ctx: ToolContext, req: TypeCheckRequest): Promise<TypeCheckOutcome> {
  const configFile = tsconfigFor(ctx, req);
  const root = path.dirname(configFile);
  // tsc compiles symlinked sources it finds under the project, wherever they lead.
  refuseLinksLeaving(root, ctx.allowlist);
  const allowedRoot = ctx.allowlist.rootOf(configFile) ?? root;
  const own = projectPackage("typescript", root, allowedRoot);
  if (own && majorVersion(own.version) >= 7) return checkWithCli(ctx, own, configFile);
  const mod = own?.entry ? own : bundledPackage("typescript");
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
        ...(extendedConfigs.get(configFile) ?? []),
        path.join(root, "package.json"),
        path.join(mod.dir, "package.json"),
      ],
    },
    "check",
    params,
    command,
  );
  extendedConfigs.set(configFile, result.extendedConfigs);
  if (result.codeCacheMissed?.length) await produceCodeCaches(ctx, result.codeCacheMissed);
  const findings = result.diagnostics.map((d) => tscFinding(d, configFile));
  return {
    findings,
    command,
    passed: !findings.some((f) => f.severity === "error"),
    notes: [toolNote(mod), `config: ${configFile} (${result.rootFiles} root files)`, note],
  };
}

registerTypeChecker({
  name: "tsc",
  languages: ["typescript", "javascript"],
  // A TypeScript file, or a directory with a tsconfig.json.
  claims: (target) =>
    /\.[cm]?tsx?$/.test(target) || fs.existsSync(path.join(directoryOf(target), "tsconfig.json")),
  check: tscCheck,
});
