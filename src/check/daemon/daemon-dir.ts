/**
 * Where the check daemon lives: a folder no sandbox binds, owner-only (0700), checked to be a real folder
 * of this user. `$XDG_RUNTIME_DIR/mcp-code-quality` when the runtime folder is usable (absolute, a real
 * folder of ours, 0700: what systemd-logind makes), else `<tmpdir>/mcq-daemon-<uid>`. Neither is under the
 * per-user scratch folder that sandboxes bind: bubblewrap shows a private /tmp and no /run, so a tool run
 * for a project can neither see the daemon's socket nor read its secret.
 *
 * The secret (32 random bytes, 0600) is what a client and the daemon prove themselves with (auth.ts): only
 * this user's processes outside any sandbox can read it.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const SECRET_FILE = "secret";
export const SECRET_BYTES = 32;

const uid = () => process.getuid?.();

/** Why `st` is not a private folder of this user, or undefined when it is one. */
function notPrivateDir(st: fs.Stats, requireMode: boolean): string | undefined {
  if (st.isSymbolicLink()) return "is a link";
  if (!st.isDirectory()) return "is not a folder";
  const me = uid();
  if (me !== undefined && st.uid !== me) return "belongs to another user";
  if (requireMode && (st.mode & 0o077) !== 0) return "is open to other users";
  return undefined;
}

/** The runtime folder when usable: set, absolute, a real folder of ours, 0700. */
function usableRuntimeDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_RUNTIME_DIR;
  if (!xdg || !path.isAbsolute(xdg)) return undefined;
  try {
    return notPrivateDir(fs.lstatSync(xdg), true) ? undefined : xdg;
  } catch {
    return undefined;
  }
}

/** Creates `dir` (0700) if missing, then checks it through an fd opened without following a link. */
export function ensurePrivateDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      `the daemon folder ${dir} ${code === "ELOOP" || code === "ENOTDIR" ? "is a link or not a folder" : `cannot be opened (${code})`}: not used`,
      { cause: err },
    );
  }
  try {
    const why = notPrivateDir(fs.fstatSync(fd), false);
    if (why) throw new Error(`the daemon folder ${dir} ${why}: not used`);
    if ((fs.fstatSync(fd).mode & 0o077) !== 0) fs.fchmodSync(fd, 0o700);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The daemon's folder for this environment, created and checked; throws (with why) when none is usable.
 * `env` is the environment the client runs with (its XDG_RUNTIME_DIR; TMPDIR through os.tmpdir()).
 */
export function daemonDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = usableRuntimeDir(env);
  const dir = runtime
    ? path.join(runtime, "mcp-code-quality")
    : path.join(os.tmpdir(), `mcq-daemon-${uid() ?? "user"}`);
  ensurePrivateDir(dir);
  return dir;
}

/** Reads the secret, checked through its fd: a regular file of ours, 0600 or tighter, 32 bytes. */
function readSecretFile(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    const me = uid();
    if (!st.isFile() || (me !== undefined && st.uid !== me) || (st.mode & 0o077) !== 0)
      throw new Error(`the daemon secret ${file} is not a private file of this user: not used`);
    const secret = Buffer.alloc(SECRET_BYTES + 1);
    const n = fs.readSync(fd, secret, 0, secret.length, 0);
    if (n !== SECRET_BYTES)
      throw new Error(`the daemon secret ${file} is not ${SECRET_BYTES} bytes: not used`);
    return secret.subarray(0, SECRET_BYTES);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The secret of the daemon folder `dir`, made on first use: written whole to a temp file (exclusive, 0600)
 * and linked into place, so a reader never sees it half written and two clients making it at once agree
 * (the second link fails and reads the first). `create: false` (the daemon) only reads it.
 */
export function daemonSecret(dir: string, create = true): Buffer {
  const file = path.join(dir, SECRET_FILE);
  try {
    return readSecretFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" || !create) throw err;
  }
  const temp = path.join(dir, `.secret-${randomBytes(8).toString("hex")}.tmp`);
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  try {
    const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, randomBytes(SECRET_BYTES));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return readSecretFile(file);
}
