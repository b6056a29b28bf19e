/**
 * The Claude Code hook's start-up snapshot (src/hooks/claude-code-snapshot.ts): where its blob lives, how it
 * is built, and the command line that runs it with the bundled hook as the fallback.
 *
 * The blob sits beside the bundle it was built from (dist/bundle), so it is exactly as writable as the hook's
 * code itself, and is named by the Node version and architecture that built it: a blob only loads in the
 * Node that made it. Whatever goes wrong with it (another Node, a rebuilt bundle, the blob gone or damaged),
 * the command line runs dist/bundle/hook.cjs on the same input, which is the same decision, only slower.
 */
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { codePath } from "../package-root.js";

const BUNDLE_DIR = codePath("bundle");
export const SNAPSHOT_BUNDLE = path.join(BUNDLE_DIR, "hook-snapshot.cjs");
/** Building runs a few decisions and writes ~10 MB; a busy machine takes seconds. */
const BUILD_TIMEOUT_MS = 120_000;

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The blob for this Node: dist/bundle/hook-snapshot-v20.20.2-x64.blob. */
export function snapshotBlobPath(version = process.version, arch = process.arch): string {
  return path.join(BUNDLE_DIR, `hook-snapshot-${version}-${arch}.blob`);
}

/** Whether `blob` loads in this Node and answers: a payload for no tool it checks exits 0 with nothing. */
function answers(blob: string): boolean {
  const r = spawnSync(process.execPath, ["--snapshot-blob", blob, "claude-code"], {
    input: JSON.stringify({ tool_name: "Read", tool_input: {} }),
    encoding: "utf8",
    timeout: 30_000,
  });
  return r.status === 0 && r.stdout === "";
}

/**
 * The blob for this Node, built when it is missing or no longer matches the bundle; undefined (with the
 * reason) when it cannot be built here (a read-only package folder, a Node without snapshot support).
 */
export function ensureSnapshotBlob(): { blob?: string; reason?: string } {
  const blob = snapshotBlobPath();
  if (!fs.existsSync(SNAPSHOT_BUNDLE)) return { reason: `${SNAPSHOT_BUNDLE} is missing (run npm run build)` };
  if (fs.existsSync(blob) && answers(blob)) return { blob };
  const tmp = `${blob}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    // Exclusive create: the build writes into a name nobody else holds, then it is renamed into place.
    fs.closeSync(fs.openSync(tmp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o644));
  } catch (err) {
    return { reason: `cannot write beside ${SNAPSHOT_BUNDLE}: ${(err as Error).message}` };
  }
  try {
    const r = spawnSync(process.execPath, ["--snapshot-blob", tmp, "--build-snapshot", SNAPSHOT_BUNDLE], {
      encoding: "utf8",
      timeout: BUILD_TIMEOUT_MS,
    });
    if (r.status !== 0) {
      const why = (r.stderr || r.error?.message || `exit ${r.status}`).split("\n").find((l) => l.trim());
      return { reason: `building the hook snapshot failed: ${why}` };
    }
    if (!answers(tmp)) return { reason: "the built hook snapshot does not answer; not used" };
    fs.renameSync(tmp, blob);
    return { blob };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The SHA-256 of a file, hex ("missing" when it cannot be read: no blob then matches it). */
export function sha256Of(file: string): string {
  try {
    return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  } catch {
    return "missing";
  }
}

/**
 * The blob's identity as GNU `stat -c '%i %s %z'` prints it (inode, size, change time to the nanosecond), or
 * undefined where that `stat` is not there (BSD, macOS): the line then checks the hash alone.
 */
export function statIdentityOf(file: string): string | undefined {
  const r = spawnSync("stat", ["-c", "%i %s %z", "--", file], { encoding: "utf8", timeout: 5000 });
  const out = r.status === 0 ? r.stdout.trim() : "";
  return /^\d+ \d+ \d{4}-\d\d-\d\d [\d:.]+ [+-]\d{4}$/.test(out) ? out : undefined;
}

/**
 * The hook through the snapshot, falling back to `plain` (the bundled hook, same argument) on any other
 * exit than 0: the input is read once and given to either. The caller wraps it to fail closed.
 *
 * A blob is code: one that exits 0 with nothing would allow every call. So the line runs the blob only when
 * it is the file the install saw. First by its identity (`stat`: inode, size and change time, which no write,
 * copy, rename or `touch` can set back: the kernel stamps it), a ~1 ms check; when that differs (the blob
 * was moved or restored, or `stat` is not GNU's), by its SHA-256 as built (`hash`; openssl, else sha256sum),
 * which reads all 12 MB (~14 ms of CPU). A replaced, rebuilt or damaged blob passes neither, and the bundled
 * hook decides instead. Setting the change time back takes changing the system clock (root's
 * CAP_SYS_TIME), which the command policy refuses like any other attack on the guard.
 */
export function snapshotCommand(
  node: string,
  blob: string,
  plain: string,
  hash = sha256Of(blob),
  /** null: check the hash alone. */
  identity: string | null = statIdentityOf(blob) ?? null,
): string {
  const hashed = `{ { openssl dgst -sha256 -r || sha256sum; } < ${q(blob)} 2>/dev/null | { read -r h _; [ "$h" = ${hash} ]; }; }`;
  const verified = identity
    ? `{ [ "$(stat -c '%i %s %z' -- ${q(blob)} 2>/dev/null)" = ${q(identity)} ] || ${hashed}; }`
    : hashed;
  return `p=$(cat) && { { ${verified} && printf '%s' "$p" | ${q(node)} --snapshot-blob ${q(blob)} claude-code 2>/dev/null; } || printf '%s' "$p" | ${plain}; }`;
}
