/**
 * Answers of probes (a tool's `--version`, whether bubblewrap can make a sandbox) remembered on disk between
 * processes, so a fresh `check` does not start the same programs every time it starts. An answer is kept
 * under the identity of the executable that gave it (path, device, inode, size, modification and change
 * times: any reinstall, copy or edit makes a new one) and whatever else it depends on (`context`), in a
 * folder of the server's own that no sandbox shows (`$XDG_CACHE_HOME/mcp-code-quality/probes`).
 *
 * Only a native executable that is one file (ELF, one link) is remembered: a script (a Python entry point, a
 * pyenv shim) or a hard-linked proxy (rustup's cargo) runs something its own identity does not name.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/** The folder of remembered probes (created 0700 when first written). */
export function probeMemoDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".cache");
  return path.join(base, "mcp-code-quality", "probes");
}

/** What names `executable` as the file it is now; undefined when its answer must not be remembered. */
export function rememberableIdentity(executable: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(executable, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    // A link (PATH entries often are): the file it names, opened by its real path.
    try {
      fd = fs.openSync(fs.realpathSync(executable), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return undefined;
    }
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.nlink !== 1n) return undefined;
    const head = Buffer.alloc(4);
    if (fs.readSync(fd, head, 0, 4, 0) !== 4 || !head.equals(ELF_MAGIC)) return undefined;
    return [executable, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(":");
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

const keyFile = (dir: string, parts: readonly string[]) =>
  path.join(dir, createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32) + ".json");

/** The remembered answer for `parts` (identity and context), if any. */
export function recallProbe<T>(parts: readonly string[], dir = probeMemoDir()): T | undefined {
  try {
    const fd = fs.openSync(keyFile(dir, parts), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const entry = JSON.parse(fs.readFileSync(fd, "utf8")) as { key?: unknown; answer?: T };
      // The whole key is stored too: a hash prefix alone is no proof.
      return entry.key === parts.join("\0") ? entry.answer : undefined;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Remembers `answer` for `parts`: written under a fresh name, renamed into place; failures are ignored. */
export function rememberProbe(parts: readonly string[], answer: unknown, dir = probeMemoDir()): void {
  const file = keyFile(dir, parts);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = fs.openSync(tmp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
    try {
      fs.writeFileSync(fd, JSON.stringify({ key: parts.join("\0"), answer }));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}
