/**
 * Where the sandbox meets process spawning: the runner, the warm workers and the daemons each hand their
 * command here and start what comes back (bwrap and its argv, or the command itself when the sandbox is off
 * or, under `auto`, unavailable). The one place that decides whether a process is sandboxed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { ToolError } from "../../errors.js";
import { findExecutable } from "../which.js";
import { recallProbe, rememberableIdentity, rememberProbe } from "../probe-memo.js";
import { hostLayout } from "./host.js";
import { factsKeyOf, planProfile, prefixOf, type SandboxRequest } from "./plan.js";
import {
  bwrapArgv,
  idsArgv,
  ISOLATION_ARGV,
  visibleIn,
  type ResourceLimits,
  type SandboxProfile,
} from "./profile.js";
import { scratchFoldersNamed, scratchProjectOf, scratchRoot } from "./scratch.js";
import { toolEnvironment, type EnvFamily } from "./env.js";
import { GIT_SAFE_ENV, isGit, safeGitArgs } from "../git-safety.js";

export const SANDBOX_MODES = ["auto", "required", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a process asks of the sandbox: the operator's mode and the call's request. */
export interface SandboxRun {
  mode: SandboxMode;
  request: SandboxRequest;
  /** Resource limits set inside the sandbox (prlimit), when the operator asked for them. */
  limits?: ResourceLimits;
}

export interface SandboxStatus {
  available: boolean;
  bwrap?: string;
  version?: string;
  reason?: string;
}

export interface Launch {
  program: string;
  args: string[];
  /**
   * The environment the process starts with, before the caller's own additions: the server's, with its
   * secrets and every credential left out, and for a tool that runs no project code only what its family
   * needs (env.ts).
   */
  env: NodeJS.ProcessEnv;
  envFamily: EnvFamily;
  /** The profile enforced; undefined when the process runs unsandboxed. */
  profile?: SandboxProfile;
  /** Why it runs unsandboxed under `auto`. */
  note?: string;
}

let probed: SandboxStatus | undefined;

/**
 * Whether bubblewrap runs here: found on PATH, and a trial sandbox with the namespaces the profiles use
 * starts `true` (user namespaces may be off, or a container may forbid mounts). Once per process, ~5 ms.
 */
export function probeSandbox(): SandboxStatus {
  if (probed) return probed;
  // The system's bwrap even when the server's PATH leaves /usr/bin out (a PATH narrowed to pick tools).
  const bwrap =
    findExecutable("bwrap") ?? findExecutable("bwrap", ["/usr/bin", "/usr/local/bin", "/bin"], "");
  if (!bwrap) return (probed = { available: false, reason: "bubblewrap (bwrap) is not installed" });
  const memoKey = sandboxProbeKey(bwrap);
  const remembered = memoKey ? recallProbe<{ version?: string }>(memoKey) : undefined;
  if (remembered) return (probed = { available: true, bwrap, ...remembered });
  const version = /\d+\.\d+(\.\d+)?/.exec(
    spawnSync(bwrap, ["--version"], { encoding: "utf8", timeout: 5000 }).stdout ?? "",
  )?.[0];
  // The same namespaces and privileges as every profile (profile.ts), /proc/sys read-only included.
  const trial = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
      .concat(hostLayout().procReadOnly.flatMap((p) => ["--ro-bind", p, p]))
      .concat(["--tmpfs", "/tmp", "--unshare-net", ...ISOLATION_ARGV, ...idsArgv(hostLayout().ids)])
      .concat(["--", TRUE]),
    { encoding: "utf8", timeout: 5000 },
  );
  if (trial.status !== 0)
    return (probed = {
      available: false,
      bwrap,
      version,
      reason: `bwrap cannot create a sandbox here: ${(trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().slice(0, 300)}`,
    });
  // Only a sandbox that worked is remembered: a failure is asked again (and a remembered success that no
  // longer holds fails the tool's run, never runs it unsandboxed).
  if (memoKey) rememberProbe(memoKey, version ? { version } : {});
  return (probed = { available: true, bwrap, version });
}

/** The kernel settings that decide whether user namespaces can be made, read as text (absent: ""). */
const USERNS_SETTINGS = [
  "/proc/sys/kernel/random/boot_id",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/** What a remembered sandbox probe depends on: bwrap itself, this boot and its settings, the user, the trial. */
function sandboxProbeKey(bwrap: string): string[] | undefined {
  const identity = rememberableIdentity(bwrap);
  if (!identity) return undefined;
  const settings = USERNS_SETTINGS.map((f) => {
    try {
      return fs.readFileSync(f, "utf8").trim();
    } catch {
      return "";
    }
  });
  const trial = [...hostLayout().procReadOnly, ...ISOLATION_ARGV, ...idsArgv(hostLayout().ids)];
  return ["sandbox", identity, String(process.getuid?.() ?? ""), ...settings, ...trial];
}

const TRUE = findExecutable("true", ["/usr/bin", "/bin"], "") ?? "true";

/** A sandbox inside a sandbox: what go test's test binaries run in (nestedTestsArgv). */
const NESTED_ARGV = ["--dev-bind", "/", "/", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent"];

let nested: boolean | undefined;

/**
 * Whether a sandbox can start a sandbox of its own here (a user namespace inside the first one): tried once,
 * with the same flags as every profile. Where it cannot, go test's runs see Go's caches read-only instead.
 */
export function nestedSandboxWorks(): boolean {
  if (nested !== undefined) return nested;
  const status = probeSandbox();
  if (!status.available || !status.bwrap) return (nested = false);
  const trial = spawnSync(
    status.bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
      .concat(hostLayout().procReadOnly.flatMap((p) => ["--ro-bind", p, p]))
      .concat(["--tmpfs", "/tmp", "--unshare-net", ...ISOLATION_ARGV, ...idsArgv(hostLayout().ids)])
      .concat(["--", status.bwrap, ...NESTED_ARGV, "--", TRUE]),
    { encoding: "utf8", timeout: 5000 },
  );
  return (nested = trial.status === 0);
}

/**
 * go test's `-exec` program: a nested sandbox in which `readOnly` (Go's build and module caches, which the go
 * command itself fills) are read-only, so that a test binary, the project's code, cannot change what another
 * project's build reads. Each field quoted as go splits it; undefined when a path cannot be quoted.
 */
export function nestedTestsExec(
  bwrap: string,
  readOnly: readonly string[],
  setenv: Readonly<Record<string, string>> = {},
): string | undefined {
  const fields = [bwrap, ...NESTED_ARGV.slice(0, 3), ...readOnly.flatMap((p) => ["--ro-bind", p, p])].concat(
    Object.entries(setenv).flatMap(([k, v]) => ["--setenv", k, v]),
    NESTED_ARGV.slice(3),
    ["--"],
  );
  if (fields.some((f) => /['"\n]/.test(f))) return undefined;
  return fields.map((f) => `'${f}'`).join(" ");
}

export const INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap)";

/** The note every result carries when `auto` runs tools unsandboxed. */
export function unsandboxedNote(status: SandboxStatus): string {
  return `not sandboxed: ${status.reason ?? "bubblewrap is unavailable"}; tools run with the server's own access (--sandbox auto; ${INSTALL_HINT}, or --sandbox required to refuse)`;
}

/** The sandbox as get_status and tool_capabilities report it: what the mode enforces on this host. */
export function sandboxReport(mode: SandboxMode): Record<string, unknown> {
  if (mode === "off")
    return {
      mode,
      enforced: false,
      kind: "none",
      note: "--sandbox off: tools run with the server's own access",
    };
  const status = probeSandbox();
  if (status.available)
    return {
      mode,
      enforced: true,
      kind: "bubblewrap",
      version: status.version ?? null,
      bwrap: status.bwrap,
      privileges: PRIVILEGES,
    };
  return mode === "required"
    ? {
        mode,
        enforced: false,
        kind: "none",
        reason: status.reason,
        note: `--sandbox required: every external tool is refused until bubblewrap works (${INSTALL_HINT})`,
      }
    : { mode, enforced: false, kind: "none", reason: status.reason, note: unsandboxedNote(status) };
}

/** What every sandboxed process holds of the host's privileges (profile.ts ISOLATION_ARGV), as reported. */
export const PRIVILEGES = {
  capabilities: "none (--cap-drop ALL; no_new_privs)",
  user_namespace: "its own (--unshare-user), the server's uid mapped alone",
  proc_sys: "read-only",
};

/**
 * The command to start for `executable args` at `cwd` under `run`, and its environment (built from
 * `baseEnv`, the server's by default); throws ToolError when the sandbox is required and unavailable.
 * `extraEnv`: what the caller sets on top (the server's private folders it names are shown to the run).
 */
export function sandboxLaunch(
  executable: string,
  args: readonly string[],
  cwd: string,
  run: SandboxRun | undefined,
  extraEnv: Readonly<Record<string, string | undefined>> = {},
  baseEnv: NodeJS.ProcessEnv = process.env,
  /** Credential variables this run is given all the same (a fill step's registry tokens). */
  declaredEnv: readonly string[] = [],
): Launch {
  let real = executable;
  try {
    real = fs.realpathSync.native(executable);
  } catch {
    // Not there: the spawn reports it.
  }
  const built = toolEnvironment(executable, real, run?.request, baseEnv, declaredEnv);
  // Every git, sandboxed or not: a repository's config must not name a program git runs (git-safety.ts).
  if (isGit(executable) || isGit(real)) {
    args = safeGitArgs(args);
    Object.assign(built.env, GIT_SAFE_ENV);
  }
  const unsandboxed = { program: executable, args: [...args], env: built.env, envFamily: built.family };
  if (!run || run.mode === "off") return unsandboxed;
  const status = probeSandbox();
  if (!status.available || !status.bwrap) {
    if (run.mode === "required")
      throw new ToolError(
        "tool_not_found",
        `the sandbox is required (--sandbox required) and cannot run: ${status.reason ?? "bwrap unavailable"}; ${INSTALL_HINT}, or start the server with --sandbox auto or off`,
      );
    return { ...unsandboxed, note: unsandboxedNote(status) };
  }
  const host = hostLayout();
  // Of the server's private folders, only those this command names (never one of another call's).
  const scratch = scratchFoldersNamed([
    cwd,
    ...args,
    ...Object.values(extraEnv).filter((v): v is string => typeof v === "string"),
  ]);
  let request = scratch.length ? { ...run.request, scratch } : run.request;
  // go test: the go command fills its caches; the test binaries (the project's code) run nested, without them.
  const goTest = factsKeyOf(executable) === "go" && args[0] === "test" && request.kind === "tests";
  if (goTest && nestedSandboxWorks()) request = { ...request, nestedTests: true };
  let planned = withLaunchTimeMounts(
    planProfile(host, request, executable, cwd, real, projectOf(real, cwd, request.roots)),
  );
  if (request.nestedTests) {
    const exec = nestedTestsExec(status.bwrap, planned.readOnlyForTests ?? [], planned.setenvForTests);
    if (exec) args = ["test", `-exec=${exec}`, ...args.slice(1)];
    else
      planned = withLaunchTimeMounts(
        planProfile(
          host,
          { ...request, nestedTests: false },
          executable,
          cwd,
          real,
          projectOf(real, cwd, request.roots),
        ),
      );
  }
  const limits = run.limits && hasLimits(run.limits) ? run.limits : undefined;
  if (limits && !host.prlimit)
    throw new ToolError(
      "tool_not_found",
      "--tool-max-cpu-seconds / --tool-max-memory-mb need prlimit (util-linux), which is not installed; install util-linux or set them to 0",
    );
  const profile = limits && host.prlimit ? { ...planned, limits, prlimit: host.prlimit } : planned;
  return {
    program: status.bwrap,
    args: bwrapArgv(profile, executable, args),
    // The run's own temp folder, whatever the server's TMPDIR (a folder the sandbox may not show): before, a
    // tool that writes temp files failed there, some silently (gosec's go list: it scanned no file and
    // reported none). A caller's own TMPDIR (the mypy daemon's socket folder) still wins (runner.ts).
    env: { ...built.env, TMPDIR: profile.privateTmp ?? "/tmp" },
    envFamily: built.family,
    profile,
  };
}

/**
 * The project a per-project cache folder is kept for: a tool found inside an allowed root is that project's
 * own (its prefix: `<project>/.venv`); else the project a scratch copy was made from, or the working folder.
 */
function projectOf(realExecutable: string, cwd: string, roots: readonly string[]): string {
  const inside = roots.some((r) => realExecutable === r || realExecutable.startsWith(`${r}/`));
  if (inside) return prefixOf(realExecutable) ?? realExecutable;
  return scratchProjectOf(cwd) ?? cwd;
}

/** The profile as this launch finds the host: its caches made, its optional files bound if they exist now. */
export function withLaunchTimeMounts(profile: SandboxProfile): SandboxProfile {
  const cached = withCaches(profile);
  const present = (cached.readOnlyIfPresent ?? []).filter((f) => fs.existsSync(f));
  return present.length ? { ...cached, readOnly: [...cached.readOnly, ...present] } : cached;
}

/**
 * The profile with its caches made where missing (owner-only, as a tool's first run would make them, but on
 * the host, so they outlive the sandbox), without those that cannot be made (a read-only $HOME): the tool
 * then runs as before, its cache private to the run.
 */
export function withCaches(profile: SandboxProfile): SandboxProfile {
  if (!profile.caches?.length) return profile;
  const missing = profile.caches.filter((c) => !ensureFolder(c));
  if (!missing.length) return profile;
  const binds = (profile.binds ?? []).filter((b) => !missing.includes(b.source));
  // A variable naming a cache folder that could not be made is not set (GOCACHEPROG's own folder).
  const naming = (env: Readonly<Record<string, string>> | undefined) =>
    env &&
    Object.fromEntries(Object.entries(env).filter(([, v]) => !missing.some((m) => v.split(" ").includes(m))));
  return {
    ...profile,
    ...(profile.setenv ? { setenv: naming(profile.setenv) } : {}),
    ...(profile.setenvForTests ? { setenvForTests: naming(profile.setenvForTests) } : {}),
    readOnly: profile.readOnly.filter((p) => !missing.includes(p)),
    readWrite: profile.readWrite.filter((p) => !missing.includes(p)),
    ...(profile.binds ? { binds } : {}),
    caches: profile.caches.filter((c) => !missing.includes(c)),
    ...(profile.readOnlyCaches
      ? { readOnlyCaches: profile.readOnlyCaches.filter((c) => !missing.includes(c)) }
      : {}),
  };
}

function ensureFolder(dir: string): boolean {
  try {
    if (fs.statSync(dir).isDirectory()) return true;
    return false;
  } catch {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return true;
    } catch {
      return false;
    }
  }
}

function hasLimits(l: ResourceLimits): boolean {
  return (l.cpuSeconds ?? 0) > 0 || (l.dataBytes ?? 0) > 0;
}

/** The limits of a run from the operator's flags (0: none); warm processes get no CPU limit. */
export function limitsFrom(
  config: { toolMaxCpuSeconds: number; toolMaxMemoryMb: number },
  warm = false,
): ResourceLimits | undefined {
  const limits: ResourceLimits = {};
  if (!warm && config.toolMaxCpuSeconds > 0) limits.cpuSeconds = config.toolMaxCpuSeconds;
  if (config.toolMaxMemoryMb > 0) limits.dataBytes = config.toolMaxMemoryMb * 1024 * 1024;
  return hasLimits(limits) ? limits : undefined;
}

const PATH_IN_TEXT = /(?:^|[\s'"`(=:,[])(\/[\w.@+\-/]+[\w@+\-/])/gm;

/**
 * Files a tool's output names that exist on the host but not in its sandbox: a config that reaches outside
 * the allowed roots (`extends: "../../shared/tsconfig.json"`), which the tool then reports as missing.
 */
export function invisiblePaths(profile: SandboxProfile, text: string, limit = 5): string[] {
  const found = new Set<string>();
  // The server's own folders (a cargo target dir, a scratch config) are shown to a run exactly when its
  // command names them; a path of theirs in the output (cargo's "Running …/deps/…") is none of the user's.
  const scratch = `${scratchRoot()}/`;
  for (const m of text.matchAll(PATH_IN_TEXT)) {
    const p = m[1] ?? "";
    if (found.size >= limit) break;
    // A path names a file or folder below the root: `//` and `///` are comment markers (a doc comment in a
    // formatter's diff), and `/` exists everywhere.
    if (p.startsWith("//") || !/[^/]/.test(p) || p.startsWith(scratch)) continue;
    if (visibleIn(profile, p)) continue;
    try {
      if (fs.existsSync(p)) found.add(p);
    } catch {
      // Unreadable: not ours to report.
    }
  }
  return [...found];
}

/** The note for files the sandbox hid, naming the allowlist and the flag that widens it. */
export function invisibleNote(tool: string, paths: readonly string[], roots: readonly string[]): string {
  return `${tool} could not see ${paths.join(", ")}: outside the allowed paths (${roots.join(", ") || "none"}), so the sandbox does not show it to the tool; add the folder with --allowed-paths if the tool should read it`;
}
