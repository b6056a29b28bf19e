// Wall and CPU time of a command run to its end, CPU being user + system of it and everything it started
// (bash's `times`, children's line), output discarded.
import { spawnSync } from "node:child_process";

/** { wall, cpu } in ms and the exit status of `argv` run in `cwd`. */
export function timed(argv, cwd, env) {
  const t = performance.now();
  const r = spawnSync("bash", ["-c", '"$@" >/dev/null 2>&1; s=$?; times; exit $s', "timed", ...argv], {
    cwd,
    env,
    encoding: "utf8",
  });
  const wall = performance.now() - t;
  const children = r.stdout.trim().split("\n")[1] ?? "";
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60 + Number(s));
  return { wall, cpu: (secs[0] + secs[1]) * 1000, status: r.status };
}
