/**
 * A sandbox profile and the bubblewrap argv that enforces it. Pure: which folders exist, where HOME is and
 * which tool it is are decided by the caller (plan.ts); this module only turns the decision into argv.
 *
 * Mount order matters to bwrap (a later mount covers an earlier one): system folders, the server's own
 * install, a private /tmp and an empty $HOME, then the toolchains under $HOME, then the allowed roots and
 * scratch folders, then the paths the profile hides (a provider's git and shells).
 *
 * Every process runs without capabilities in the host's namespaces, whoever starts the server: a user
 * namespace of its own (`--unshare-user`, the server's uid mapped alone; root's shown inside as 65534, an
 * unprivileged id, so that the process is no one's root there either) and `--cap-drop ALL` (bwrap also sets
 * no_new_privs), so root's tools cannot remount a read-only bind, and the kernel's settings under /proc/sys
 * are read-only over the sandbox's /proc (root's uid on the host alone would let it write them).
 */

export interface SandboxProfile {
  /** Top-level system folders bound read-only (/usr, /etc, ...). */
  system: readonly Mount[];
  /** Paths under /proc bound read-only over the sandbox's own /proc (/proc/sys). */
  procReadOnly?: readonly string[];
  /** The ids the process has inside its user namespace (root's server: an unprivileged one); default its own. */
  ids?: SandboxIds;
  /** Other folders visible read-only (the server's install, toolchains, a tool's own prefix). */
  readOnly: readonly string[];
  /** Folders visible read-write (declared caches, the run's own scratch folders, the roots of a transaction). */
  readWrite: readonly string[];
  /** Host folders bound read-write at another path (a cache's folder for this project, at the cache's path). */
  binds?: readonly { source: string; dest: string }[];
  /** The user's home, replaced by an empty private folder (what is in it stays hidden unless bound above). */
  home: string;
  /** Network namespace of its own (loopback only) unless the tool needs the network. */
  network: boolean;
  /** Files or folders covered by an empty one (a provider must not find git or a shell). */
  hidden: readonly { path: string; dir: boolean }[];
  /** The working directory inside the sandbox. */
  cwd: string;
  /** Whether the process may run the project's code (plan.ts): shared caches are then not writable. */
  runsProjectCode?: boolean;
  /**
   * The folders a nested sandbox shows read-only to the programs the tool runs for the project (go test's test
   * binaries, through `-exec`): the tool itself writes them (launch.ts).
   */
  readOnlyForTests?: readonly string[];
  /** Environment that nested sandbox sets for those programs (GOCACHEPROG: plan.ts goCacheOverlayOf). */
  setenvForTests?: Readonly<Record<string, string>>;
  /** Host cache folders bound (shared ones, or per-project sources): made (owner-only) when missing, dropped when they cannot be. */
  caches?: readonly string[];
  /** Shared caches shown read-only because the process runs project code (a fill step fills them first). */
  readOnlyCaches?: readonly string[];
  /** Files shown read-only when they exist at launch (Go's settings file, which `go env -w` may make later). */
  readOnlyIfPresent?: readonly string[];
  /**
   * The server's private folders under a bound root, each covered by an empty tmpfs in mount order (by depth),
   * so that only the binds deeper than it (this run's own scratch folders) show anything of it.
   */
  masked?: readonly string[];
  /** A private temp folder made after the binds (TMPDIR names it): /tmp is covered by a read-only root. */
  privateTmp?: string;
  /** Environment set inside (on top of what the process is given). */
  setenv?: Readonly<Record<string, string>>;
  /** Resource limits, set by `prlimit` (its path in `prlimit`) between bwrap and the tool. */
  limits?: ResourceLimits;
  prlimit?: string;
}

/**
 * Limits of one process and what it starts. Memory is RLIMIT_DATA (private writable memory), not RLIMIT_AS:
 * V8, Go and WebAssembly reserve far more address space than they use, so an address-space cap breaks them.
 */
export interface ResourceLimits {
  /** RLIMIT_CPU: the kernel sends SIGXCPU, then SIGKILL, past it. */
  cpuSeconds?: number;
  /** RLIMIT_DATA, bytes: an allocation past it fails (the tool reports out of memory). */
  dataBytes?: number;
}

/** `prlimit --cpu=N --data=B --` in front of the tool, when limits are set. */
export function limitArgv(profile: SandboxProfile): string[] {
  const { limits, prlimit } = profile;
  if (!limits || !prlimit) return [];
  const argv = [prlimit];
  if (limits.cpuSeconds) argv.push(`--cpu=${limits.cpuSeconds}`);
  if (limits.dataBytes) argv.push(`--data=${limits.dataBytes}`);
  return argv.length > 1 ? [...argv, "--"] : [];
}

export interface SandboxIds {
  uid: number;
  gid: number;
}

/** `--uid N --gid N` when the profile maps other ids than the server's own. */
export function idsArgv(ids: SandboxIds | undefined): string[] {
  return ids ? ["--uid", String(ids.uid), "--gid", String(ids.gid)] : [];
}

/** A system folder: bound, or re-created as the link it is on the host (merged /usr: /bin -> usr/bin). */
export type Mount = { path: string; link?: string };

/**
 * The namespaces and privileges every sandbox gets (the probe in launch.ts tries the same): no capabilities
 * in any namespace of the host, whether the server runs as root or not.
 */
export const ISOLATION_ARGV = [
  "--unshare-user",
  "--cap-drop",
  "ALL",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--die-with-parent",
] as const;

/** The bwrap arguments for `profile`, then `--`, the executable and its arguments. */
export function bwrapArgv(profile: SandboxProfile, executable: string, args: readonly string[]): string[] {
  const argv: string[] = [];
  for (const m of profile.system)
    if (m.link !== undefined) argv.push("--symlink", m.link, m.path);
    else argv.push("--ro-bind", m.path, m.path);
  argv.push("--dev", "/dev", "--proc", "/proc");
  for (const p of profile.procReadOnly ?? []) argv.push("--ro-bind", p, p);
  argv.push("--tmpfs", "/tmp", "--tmpfs", profile.home);
  // Shorter paths first, so a folder inside another is mounted over it, not under it.
  // A masked folder comes after the binds of its depth, before any deeper one.
  const rank = (m: { kind: "ro" | "rw" | "mask" }) => (m.kind === "ro" ? 0 : m.kind === "rw" ? 1 : 2);
  const mounts = [
    ...profile.readOnly.map((p) => ({ source: p, dest: p, kind: "ro" as const })),
    ...profile.readWrite.map((p) => ({ source: p, dest: p, kind: "rw" as const })),
    ...(profile.binds ?? []).map((b) => ({ ...b, kind: "rw" as const })),
    ...(profile.masked ?? []).map((p) => ({ source: p, dest: p, kind: "mask" as const })),
  ].sort((a, b) => depth(a.dest) - depth(b.dest) || rank(a) - rank(b));
  for (const m of mounts)
    if (m.kind === "mask") argv.push("--tmpfs", m.dest);
    else argv.push(m.kind === "rw" ? "--bind" : "--ro-bind", m.source, m.dest);
  if (profile.privateTmp) argv.push("--tmpfs", profile.privateTmp);
  for (const h of profile.hidden)
    if (h.dir) argv.push("--tmpfs", h.path);
    else argv.push("--ro-bind", "/dev/null", h.path);
  for (const [k, v] of Object.entries(profile.setenv ?? {})) argv.push("--setenv", k, v);
  argv.push(...ISOLATION_ARGV, ...idsArgv(profile.ids));
  if (!profile.network) argv.push("--unshare-net");
  argv.push("--chdir", profile.cwd, "--", ...limitArgv(profile), executable, ...args);
  return argv;
}

function depth(p: string): number {
  return p.split("/").filter(Boolean).length;
}

/** Whether `p` is visible inside the profile (under a system folder, a bind, /tmp or $HOME's tmpfs excluded). */
export function visibleIn(profile: SandboxProfile, p: string): boolean {
  const under = (root: string) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
  const bound = [...profile.readOnly, ...profile.readWrite, ...(profile.binds ?? []).map((b) => b.dest)];
  // Under a masked folder only what is bound deeper than it shows.
  const mask = (profile.masked ?? []).find(under);
  if (mask) return bound.some((r) => r.length > mask.length && under(r));
  return (
    profile.system.some((m) => under(m.path)) ||
    profile.readOnly.some(under) ||
    profile.readWrite.some(under) ||
    (profile.binds ?? []).some((b) => under(b.dest)) ||
    p.startsWith("/dev/") ||
    p.startsWith("/proc/")
  );
}
