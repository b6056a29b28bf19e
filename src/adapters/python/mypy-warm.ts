/**
 * mypy through its daemon: the registry keeps one `dmypy` per (project root, working directory, flags)
 * and restarts it when the mypy config changes. When there is no dmypy beside the mypy that would run,
 * or the daemon cannot start (e.g. `follow_imports = silent`, which it refuses), mypy runs cold and the
 * notes say why.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { readOnlySandbox } from "../warm-sandbox.js";
import { WARM_DAEMONS_SERVICE, WarmDaemons } from "../../exec/warm-daemons.js";
import { warmBudget } from "../../exec/warm-budget.js";
import { fileSignature } from "../../exec/warm-worker.js";
import { DaemonFailedError, DaemonTimeoutError, MypyDaemon, type DmypyResponse } from "./dmypy.js";

export function warmDaemons(ctx: ToolContext): WarmDaemons {
  return ctx.services.get(
    WARM_DAEMONS_SERVICE,
    () =>
      new WarmDaemons(
        { idleTtlMs: ctx.config.workerIdleTtl * 1000, maxWorkers: ctx.config.maxWorkers },
        warmBudget(ctx.services, ctx.config.maxWorkers),
      ),
  );
}

export interface WarmMypyRequest {
  /** The mypy executable that would run cold; its dmypy sibling is used. */
  mypy: string;
  root: string;
  cwd: string;
  args: string[];
  /** The server's cache folder for this project (in `args` as --cache-dir), read-write in the sandbox. */
  cacheDir?: string;
  config?: string;
  command: string;
}

/** Files whose change invalidates a daemon: every config mypy could read in its working directory. */
function watchedFiles(cwd: string, config?: string): string[] {
  const files = ["mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"].map((f) => path.join(cwd, f));
  return config && !files.includes(config) ? [...files, config] : files;
}

const versions = new Map<string, string | undefined>();

/** mypy's `__version__`, which dmypy's `run` request must carry (from `dmypy --version`). */
async function dmypyVersion(ctx: ToolContext, dmypy: string): Promise<string | undefined> {
  const key = `${dmypy}:${fs.statSync(dmypy).mtimeMs}`;
  if (!versions.has(key)) {
    const run = await ctx.run({ program: dmypy, args: ["--version"], cwd: path.dirname(dmypy) });
    versions.set(key, /^dmypy (\S+)/m.exec(run.stdout)?.[1]);
  }
  return versions.get(key);
}

export type WarmMypyOutcome =
  { kind: "warm"; response: DmypyResponse; note: string } | { kind: "cold"; note: string };

/**
 * The daemon's answer with a note saying which daemon gave it, or only a note when mypy must run cold.
 * A daemon that runs past the time limit is killed with its process group (a `timeout` error); the next
 * call starts a new one.
 */
export async function warmMypy(ctx: ToolContext, req: WarmMypyRequest): Promise<WarmMypyOutcome> {
  if (!ctx.config.warmCheckers) return { kind: "cold", note: "--warm-checkers false: mypy ran cold" };
  const dmypy = path.join(path.dirname(req.mypy), "dmypy");
  if (!fs.existsSync(dmypy)) return { kind: "cold", note: `no dmypy beside ${req.mypy}: mypy ran cold` };
  const version = await dmypyVersion(ctx, dmypy);
  if (!version) return { kind: "cold", note: `${dmypy} --version gave no version: mypy ran cold` };
  const daemons = warmDaemons(ctx);
  const key = ["mypy", req.root, req.cwd, dmypy, ...req.args].join("\0");
  const signature = fileSignature(watchedFiles(req.cwd, req.config));
  // An orphan (the server killed by SIGKILL) ends itself 10 s after the idle TTL.
  const selfExit = ctx.config.workerIdleTtl + 10;
  for (let attempt = 1; ; attempt++) {
    const { daemon, fresh, restartedBecause } = daemons.acquire(
      key,
      signature,
      () =>
        new MypyDaemon(
          req.root,
          dmypy,
          req.cwd,
          req.args,
          selfExit,
          readOnlySandbox(ctx, req.cacheDir ? [req.cacheDir] : undefined),
        ),
    );
    try {
      const response = await daemon.run(version, req.args, ctx.config.timeout * 1000, ctx.signal);
      if (response.restart && attempt === 1) {
        daemons.drop(key);
        continue;
      }
      if (response.error || response.restart) {
        daemons.drop(key);
        return {
          kind: "cold",
          note: `the mypy daemon failed (${(response.error ?? response.restart ?? "").slice(0, 300)}): mypy ran cold`,
        };
      }
      const state = fresh
        ? `mypy daemon (dmypy ${version}) started, pid ${daemon.pid}${restartedBecause ? `, replacing the previous one: ${restartedBecause}` : ""}; this first check was cold`
        : `warm mypy daemon (dmypy ${version}) pid ${daemon.pid}, request ${daemon.requests}`;
      const startup = daemon.startupStderr.trim();
      if (startup) response.err = [startup, response.err?.trim()].filter(Boolean).join("\n");
      return { kind: "warm", response, note: state };
    } catch (err) {
      daemons.drop(key);
      if (err instanceof DaemonTimeoutError)
        throw new ToolError(
          "timeout",
          `the mypy daemon (pid ${daemon.pid}) exceeded the ${ctx.config.timeout} s timeout and was killed with its process group`,
          { command: req.command },
        );
      if (err instanceof DaemonFailedError) {
        if (attempt === 1 && !fresh) continue; // killed from outside between calls: a new one
        return {
          kind: "cold",
          note: `the mypy daemon could not be used (${err.message.slice(0, 500)}): mypy ran cold`,
        };
      }
      throw err;
    } finally {
      daemons.release(key, daemon);
    }
  }
}
