// Part of `npm run build`: the native front of `check` (native/check, Go's standard library only: the
// replayer of a kept answer and the client of the warm daemon) as dist/native/check-front, when Go is
// installed; bin/mcp-code-quality runs it before Node and, without it, Node's replayer
// (dist/bundle/check-replay.cjs) and Node's daemon client. Built to a temporary name and renamed into place;
// a build without Go removes an older binary, which could read another format.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const out = path.resolve("dist", "native", "check-front");
fs.rmSync(out, { force: true });
// Its name before it was also the daemon's client.
fs.rmSync(path.resolve("dist", "native", "check-replay"), { force: true });
const go = spawnSync("go", ["version"], { encoding: "utf8" });
if (go.status !== 0) {
  console.warn(
    "build-native: Go not found; a kept check answer is replayed, and the check daemon asked, by Node",
  );
  process.exit(0);
}
fs.mkdirSync(path.dirname(out), { recursive: true });
const temp = `${out}.${process.pid}`;
const built = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", temp, "."], {
  cwd: path.resolve("native", "check"),
  // No cgo (one static file), and never a toolchain download.
  env: { ...process.env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
  stdio: ["ignore", "inherit", "inherit"],
});
if (built.status !== 0) {
  fs.rmSync(temp, { force: true });
  console.warn(
    "build-native: go build failed; a kept check answer is replayed, and the check daemon asked, by Node",
  );
  process.exit(0);
}
fs.renameSync(temp, out);
