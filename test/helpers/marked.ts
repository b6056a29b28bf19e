/**
 * Processes found by what they inherited: in the sandbox a tool's descendants live in a pid namespace of their
 * own, so a pid they write down is not the host's. Their environment still carries what the server was given.
 */
import fs from "node:fs";
import path from "node:path";

/** Live (non-zombie) processes whose environment holds `entry` ("NAME=value"), optionally running `program`. */
export function liveWithEnv(entry: string, program?: string): number[] {
  const needle = Buffer.from(`\0${entry}\0`);
  const out: number[] = [];
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (
        !Buffer.concat([Buffer.of(0), fs.readFileSync(`/proc/${p}/environ`), Buffer.of(0)]).includes(needle)
      )
        continue;
      const argv0 = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] ?? "";
      if (program === undefined || path.basename(argv0) === program) out.push(Number(p));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Polls until `read()` is empty (at most `ms`); returns what is left. */
export async function untilNone(read: () => number[], ms = 3000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = read();
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = read();
  }
  return left;
}
