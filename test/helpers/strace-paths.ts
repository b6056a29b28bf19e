/**
 * The paths a process looked at, from `strace -f -y` output: each file syscall's path argument made
 * absolute (against its directory descriptor, or the descriptor a /proc/self/fd/N path goes through, as
 * the log's own openat() returns and close() calls name them). Pure.
 */
import path from "node:path";

const CALL = /^(?:\d+\s+)?(?:<\.\.\. )?(\w+)\((.*)$/;
const DIRFD = /^(?:AT_FDCWD|\d+)<([^>]*)>,\s*"((?:[^"\\]|\\.)*)"/;
const PLAIN = /^"((?:[^"\\]|\\.)*)"/;
const RETURNED_FD = /=\s*(\d+)<([^>]*)>\s*$/;
const CLOSED = /^(\d+)</;
const THROUGH_FD = /^\/proc\/(?:self|thread-self|\d+)\/fd\/(\d+)(\/.*)?$/;

export function stracePaths(log: string): Set<string> {
  const fds = new Map<string, string>();
  const out = new Set<string>();
  for (const line of log.split("\n")) {
    const m = CALL.exec(line);
    if (!m) continue;
    const [, call, rest] = m as unknown as [string, string, string];
    if (call === "close") {
      const c = CLOSED.exec(rest);
      if (c) fds.delete(c[1]!);
      continue;
    }
    const withDir = DIRFD.exec(rest);
    const plain = withDir ? undefined : PLAIN.exec(rest);
    let file = withDir ? withDir[2]! : plain?.[1];
    if (file !== undefined && file !== "") {
      if (!path.isAbsolute(file) && withDir) file = path.join(withDir[1]!, file);
      const through = THROUGH_FD.exec(file);
      if (through) {
        const base = fds.get(through[1]!);
        file = base === undefined ? file : base + (through[2] ?? "");
      }
      out.add(path.normalize(file));
    }
    const r = RETURNED_FD.exec(line);
    if (r) fds.set(r[1]!, r[2]!);
  }
  return out;
}
