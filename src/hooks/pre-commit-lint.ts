/**
 * The git pre-commit hook's lint: the staged files through the engine's `lint_check`, loaded only when a
 * commit has files to lint (the engine, lint_check and the linters, not every tool).
 */
import os from "node:os";
import path from "node:path";
import { giveStagedView, type StagedView } from "../adapters/git-changed.js";
import type { Config } from "../config.js";
import { linePosition } from "../findings/model.js";
import type { Engine } from "../engine/engine.js";
import type { PolicyRuntime } from "../policy/runtime.js";

/**
 * Keeps engines between commits (the check daemon's pool, by their whole Config): a kept engine's linters,
 * their versions and warm workers carry over, and it is not closed after the lint.
 */
export interface EngineKeeper {
  engineFor(config: Config, make: () => Engine): Engine;
  /** The lint that had `engine` from engineFor is done with it (it may be closed once unused). */
  release(engine: Engine): void;
}

/** The policy services registered on a kept engine (refreshed, not made again, on the next commit). */
const registered = new WeakMap<Engine, PolicyRuntime>();

/** Whether the lint refuses the commit, and the lines that say why. */
export interface LintReport {
  refused: boolean;
  lines: string[];
}

/**
 * Lints the staged files with lint_check (scope staged: the managed linter of each file's language, on the
 * staged content, with the bundle's advice attached); true when findings, or content it could not lint,
 * refuse the commit.
 */
export async function lintStaged(
  root: string,
  staged: string[],
  out: string[],
  view?: StagedView,
  /** The hook's environment (a daemon's request: the client's), for the engine's configuration. */
  env: NodeJS.ProcessEnv = process.env,
  engines?: EngineKeeper,
): Promise<boolean> {
  if (staged.length === 0) return false;
  // The engine with the one tool the hook calls: every other tool's module (and its adapters) stays unloaded.
  const [{ loadConfig }, { Engine }, { createLogger }, { registerPolicyServices }, { lintCheckTool }] =
    await Promise.all([
      import("../config.js"),
      import("../engine/engine.js"),
      import("../log.js"),
      import("../policy/runtime.js"),
      import("../mcp/tools/advice/lint-check.js"),
      import("../adapters/linter-modules.js"),
    ]);
  const config = loadConfig(
    ["--allowed-paths", root, "--log-level", "warn", "--toolsets", "core,policy"],
    { ...env, XDG_STATE_HOME: env.XDG_STATE_HOME ?? path.join(os.homedir(), ".local", "state") },
    root,
  );
  const make = () => new Engine(config, createLogger("warn"), [lintCheckTool()]);
  const engine = engines ? engines.engineFor(config, make) : make();
  // Warm workers' channels are unref'd (a server's transport keeps it alive): here nothing else would keep
  // the process alive while a worker lints or the engine closes, and Node would end the hook with exit 13
  // (an unsettled top-level await) under load, as check/command.ts found before.
  const keepAlive = setInterval(() => {}, 60_000);
  // The hook has asked git for the index already: lint_check asks it nothing more.
  if (view) giveStagedView(engine.services, view);
  try {
    const kept = registered.get(engine);
    if (kept) await kept.refresh();
    else {
      const runtime = await registerPolicyServices(engine.services, [root], config.policyAllowLoosening);
      if (engines) registered.set(engine, runtime);
    }
    // The policies were applied above, to every staged change: lint_check runs the linters only.
    const result = await engine.call("lint_check", {
      path: root,
      scope: "staged",
      limit: 50,
      policy_lint: false,
    });
    if (!result.success) {
      out.push(`lint_check: ${String(result.error)}`);
      return true;
    }
    const unavailable = (result.staged_unavailable ?? []) as string[];
    if (unavailable.length)
      out.push(
        `lint_check (staged): ${unavailable.join(", ")} differ from their staged version and their linter cannot read it from the index; stage the whole file or stash the rest, then commit again`,
      );
    if (result.nothing_checked || (result.passed !== false && unavailable.length === 0)) return false;
    const findings = (result.findings ?? []) as Record<string, unknown>[];
    const advice = (result.advice ?? {}) as Record<string, { advice?: string[] }>;
    if (findings.length || result.passed === false)
      out.push(
        `lint_check (staged): ${String(result.finding_count ?? findings.length)} finding(s)`,
        ...findings.map(
          (f) =>
            `  ${String(f.path)}:${linePosition({ line: Number(f.line), column: Number(f.column) })}: ${String(f.rule_id)} ${String(f.message)}`,
        ),
        ...Object.entries(advice)
          .filter(([, a]) => a.advice?.length)
          .slice(0, 10)
          .map(([rule, a]) => `  advice (${rule}): ${a.advice!.join(" ")}`),
      );
    return true;
  } finally {
    // A kept engine stays open for the next commit (its keeper closes it).
    if (engines) engines.release(engine);
    else await engine.close();
    clearInterval(keepAlive);
  }
}
