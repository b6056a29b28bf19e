// Part of `npm run build`: the native programs (Go's standard library only), when Go is installed, each built
// to a temporary name and renamed into place; a build without Go removes older binaries, which could read
// another format.
// - native/check as dist/native/check-front: the native front of `check` (the replayer of a kept answer and
//   the client of the warm daemon); bin/mcp-code-quality runs it before Node and, without it, Node's replayer
//   (dist/bundle/check-replay.cjs) and Node's daemon client.
// - native/go-cache-overlay as dist/native/go-cache-overlay: the GOCACHEPROG program the sandbox gives
//   project code that runs the go command (src/exec/sandbox/plan.ts goCacheOverlayOf); without it, such code
//   sees Go's shared build cache read-only, as before.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const PROGRAMS = [
  {
    source: "check",
    out: "check-front",
    without: "a kept check answer is replayed, and the check daemon asked, by Node",
  },
  {
    source: "go-cache-overlay",
    out: "go-cache-overlay",
    without: "project code that runs the go command sees Go's build cache read-only",
  },
];

// Its name before it was also the daemon's client.
fs.rmSync(path.resolve("dist", "native", "check-replay"), { force: true });
for (const p of PROGRAMS) fs.rmSync(path.resolve("dist", "native", p.out), { force: true });
const go = spawnSync("go", ["version"], { encoding: "utf8" });
if (go.status !== 0) {
  for (const p of PROGRAMS) console.warn(`build-native: Go not found; ${p.without}`);
  process.exit(0);
}
for (const p of PROGRAMS) {
  const out = path.resolve("dist", "native", p.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const temp = `${out}.${process.pid}`;
  const built = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", temp, "."], {
    cwd: path.resolve("native", p.source),
    // No cgo (one static file), and never a toolchain download.
    env: { ...process.env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (built.status !== 0) {
    fs.rmSync(temp, { force: true });
    console.warn(`build-native: go build of native/${p.source} failed; ${p.without}`);
    continue;
  }
  fs.renameSync(temp, out);
}
