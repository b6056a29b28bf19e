/**
 * A tool's temp folder. The sandbox shows a private /tmp, but the tool was handed the server's TMPDIR, which
 * the sandbox may not show, and an allowed root /tmp covered the private one read-only: gosec's `go list`
 * then failed to make its temp files, gosec scanned no file, said nothing and exited 0, and security_scan
 * passed a module whose code nobody read (cobra: 0 findings, by hand 12). Every sandboxed run now gets a
 * writable TMPDIR of its own; and a gosec run that scanned no file of packages that have Go files is a
 * failure, not a pass. The real gosec and bubblewrap.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";

const GOSEC = path.join(TOOLS_GO_BIN, "gosec");
const PATH = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;

/** A module with one finding of gosec's (a file opened by a variable's name). */
function module(): string {
  const dir = tempDir("mcq-gosec-tmp-");
  fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/gs\n\ngo 1.22\n");
  fs.writeFileSync(
    path.join(dir, "main.go"),
    'package main\n\nimport "os"\n\nfunc main() {\n\tf, _ := os.Open(os.Args[1])\n\t_ = f\n}\n',
  );
  return dir;
}

interface Scanner {
  name: string;
  ran: boolean;
  finding_count?: number;
  error?: string;
}
const gosecOf = (r: Record<string, unknown>) =>
  (r.scanners as Scanner[] | undefined)?.find((s) => s.name === "gosec");

describe.skipIf(missing("go") || missing("gosec", [TOOLS_GO_BIN]))("gosec's temp files", () => {
  const dir = module();
  const hiddenTmp = tempDir("mcq-server-tmpdir-");
  let byHand: string[];
  let sandboxed: Connected;
  let unsandboxed: Connected;
  beforeAll(async () => {
    const run = spawnSync(GOSEC, ["-fmt", "json", "./..."], { cwd: dir, encoding: "utf8" });
    byHand = (JSON.parse(run.stdout) as { Issues: { rule_id: string }[] }).Issues.map((i) => i.rule_id);
    expect(byHand.length).toBeGreaterThan(0);
    // The server's TMPDIR: a folder outside the allowed paths, which no sandbox shows.
    sandboxed = await connectStdio({
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", dir],
      env: { TMPDIR: hiddenTmp, PATH },
    });
    // Without a sandbox, a TMPDIR that does not exist: go list fails as it did in the sandbox.
    unsandboxed = await connectStdio({
      args: ["--sandbox", "off", "--result-cache", "false", "--allowed-paths", dir],
      env: { TMPDIR: path.join(hiddenTmp, "missing"), PATH },
    });
  });
  afterAll(async () => {
    await sandboxed?.close();
    await unsandboxed?.close();
  });

  it("in the sandbox, gosec finds what it finds by hand whatever the server's TMPDIR", async () => {
    const r = await sandboxed.call("security_scan", { path: dir });
    expect(gosecOf(r), JSON.stringify(r).slice(0, 1500)).toMatchObject({
      ran: true,
      finding_count: byHand.length,
    });
    expect(r.passed).toBe(false);
  });

  it("a gosec run that scanned no file of packages with Go files is a failure, never a clean pass", async () => {
    const r = await unsandboxed.call("security_scan", { path: dir });
    expect(gosecOf(r)?.error, JSON.stringify(r).slice(0, 1500)).toMatch(
      /^gosec scanned no file of \.\/\.\.\., which has Go files/,
    );
    expect(r.passed).toBe(false);
  });
});
