/**
 * Go's build cache for project code that runs the go command. A test run by run_tests sees the shared build
 * cache read-only (another project's build reads it), so a test that itself runs `go tool nm` (cobra's
 * TestDeadcodeElimination; since Go 1.25 nm is built into the cache on first use) failed under the server
 * and passed by hand. The sandbox now gives such code GOCACHEPROG=go-cache-overlay (native/go-cache-overlay):
 * the shared cache read through, what the go command puts kept in a folder of the project's own.
 * The real go command, bubblewrap and the built program; a fresh shared cache, so nm is not in it.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

const OVERLAY = path.join(REPO_ROOT, "dist", "native", "go-cache-overlay");

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A module whose test builds a program and runs `go tool nm` on it, as cobra's TestDeadcodeElimination does. */
const NM_TEST = `package nmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNmOfABuiltProgram(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\\n\\nfunc main() {}\\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool nm: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "main.main") {
		t.Fatalf("nm did not list main.main: %.200s", out)
	}
}
`;

/** Every file below `dir` (relative), sorted. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

describe.skipIf(missing("go") || !fs.existsSync(OVERLAY))("a go test that runs the go command", () => {
  const root = tempDir("mcq-gocache-proj-");
  const shared = tempDir("mcq-gocache-shared-");
  const xdg = tempDir("mcq-gocache-xdg-");
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    write(path.join(root, "go.mod"), "module example.com/nmtest\n\ngo 1.22\n");
    write(path.join(root, "nm_test.go"), NM_TEST);
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
      env: { GOCACHE: shared, XDG_CACHE_HOME: xdg, GOFLAGS: "", GOTOOLCHAIN: "local" },
    });
  });
  afterAll(() => s?.close());

  // Cold: the fill step compiles the test into a fresh shared cache and the test builds nm (seconds each).
  it("passes as it does by hand, and what its go command builds is kept in the project's own folder", async () => {
    // By hand with the user's own cache (whatever it holds, the test passes by hand).
    const byHand = spawnSync("go", ["test", "-count=1", "./..."], {
      cwd: root,
      env: { ...process.env, GOFLAGS: "", GOTOOLCHAIN: "local" },
      encoding: "utf8",
    });
    expect(byHand.status, byHand.stdout + byHand.stderr).toBe(0);
    const result = await s.call("run_tests", { path: root });
    expect(result, JSON.stringify(result).slice(0, 2000)).toMatchObject({
      success: true,
      passed: true,
      summary: { passed: 1, failed: 0 },
    });
    const own = path.join(xdg, "mcp-code-quality", "per-project", "go-build-own");
    const kept = filesUnder(own);
    // Entries in Go's own format, each naming an output that is there.
    const entries = kept.filter((f) => f.endsWith("-a"));
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      const line = fs.readFileSync(path.join(own, e), "utf8");
      // "v1 <action> <output> <size> <unix nano>\n", the numbers space-padded to 20: 175 bytes.
      expect(line).toMatch(/^v1 [0-9a-f]{64} [0-9a-f]{64} +\d+ +\d+\n$/);
      expect(line).toHaveLength(175);
      const output = line.split(" ")[2] as string;
      const project = e.split(path.sep)[0] as string;
      expect(kept).toContain(path.join(project, output.slice(0, 2), `${output}-d`));
    }
    // None of them in the shared cache: the test's go command wrote only its project's folder.
    const sharedFiles = new Set(filesUnder(shared).map((f) => path.basename(f)));
    for (const e of entries) expect(sharedFiles.has(path.basename(e))).toBe(false);
  }, 240_000);
});

/** The program spoken to over its pipes, as the go command does (cmd/go/internal/cacheprog). */
async function session(args: string[], requests: (object | string)[]): Promise<Record<string, unknown>[]> {
  const child = spawn(OVERLAY, args, { stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: child.stdout });
  const out: Record<string, unknown>[] = [];
  const done = new Promise<void>((resolve) => child.on("close", () => resolve()));
  lines.on("line", (l) => out.push(JSON.parse(l) as Record<string, unknown>));
  for (const r of requests) child.stdin.write(typeof r === "string" ? `${r}\n` : `${JSON.stringify(r)}\n`);
  child.stdin.end();
  await done;
  return out;
}

const b64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");

describe.skipIf(missing("go") || !fs.existsSync(OVERLAY))("go-cache-overlay's answers", () => {
  const shared = tempDir("mcq-gco-shared-");
  const own = path.join(tempDir("mcq-gco-own-"), "own");
  let hit: { action: string; output: string; size: number };

  beforeAll(() => {
    // A shared cache as the go command leaves it.
    const mod = tempDir("mcq-gco-mod-");
    write(path.join(mod, "go.mod"), "module example.com/p\n\ngo 1.22\n");
    write(path.join(mod, "p.go"), "package p\n\nfunc F() int { return 1 }\n");
    const built = spawnSync("go", ["build", "./..."], {
      cwd: mod,
      env: { ...process.env, GOCACHE: shared, GOFLAGS: "", GOTOOLCHAIN: "local" },
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    const entry = filesUnder(shared)
      .filter((f) => f.endsWith("-a"))
      .map((f) => fs.readFileSync(path.join(shared, f), "utf8").split(/ +/))
      .find(([, , out, size]) => {
        const d = path.join(shared, (out as string).slice(0, 2), `${out}-d`);
        return (
          Number(size) > 0 &&
          fs.existsSync(d) &&
          fs.statSync(d).isFile() &&
          fs.statSync(d).size === Number(size)
        );
      });
    expect(entry).toBeDefined();
    const [, action, output, size] = entry as string[];
    hit = { action: action as string, output: output as string, size: Number(size) };
  });

  it("answers a get from the shared cache, keeps a put in its own folder, and finds it again", async () => {
    const put = { action: "ab".repeat(32), output: "cd".repeat(32) };
    const body = Buffer.from("the body of a put\n");
    const answers = await session(
      ["-shared", shared, "-own", own],
      [
        { ID: 1, Command: "get", ActionID: b64(hit.action) },
        {
          ID: 2,
          Command: "put",
          ActionID: b64(put.action),
          OutputID: b64(put.output),
          BodySize: body.length,
        },
        JSON.stringify(body.toString("base64")),
        { ID: 3, Command: "get", ActionID: b64(put.action) },
        { ID: 4, Command: "get", ActionID: b64("ef".repeat(32)) },
        { ID: 5, Command: "close" },
      ],
    );
    expect(answers[0]).toEqual({ ID: 0, KnownCommands: ["get", "put", "close"] });
    expect(answers[1]).toMatchObject({
      ID: 1,
      OutputID: b64(hit.output),
      Size: hit.size,
      DiskPath: path.join(shared, hit.output.slice(0, 2), `${hit.output}-d`),
    });
    const kept = path.join(own, "cd", `${put.output}-d`);
    expect(answers[2]).toEqual({ ID: 2, DiskPath: kept });
    expect(fs.readFileSync(kept)).toEqual(body);
    expect(fs.readFileSync(path.join(own, "ab", `${put.action}-a`), "utf8")).toMatch(
      new RegExp(`^v1 ${put.action} ${put.output} +${body.length} +\\d+\\n$`),
    );
    expect(answers[3]).toMatchObject({ ID: 3, OutputID: b64(put.output), Size: body.length, DiskPath: kept });
    expect(answers[4]).toEqual({ ID: 4, Miss: true });
    expect(answers[5]).toEqual({ ID: 5 });
  });

  it("misses an entry that is not what the go command writes, or whose output is a folder or of another size", async () => {
    const bad = tempDir("mcq-gco-bad-");
    const entry = (action: string, output: string, size: number) =>
      `v1 ${action} ${output} ${String(size).padStart(20)} ${String(Date.now() * 1e6).padStart(20)}\n`;
    const cases: [string, string][] = [
      ["01".repeat(32), "garbage\n"],
      ["02".repeat(32), entry("03".repeat(32), "04".repeat(32), 3)], // names another action
      ["05".repeat(32), entry("05".repeat(32), "06".repeat(32), 3)], // its output a folder (an executable's)
      ["07".repeat(32), entry("07".repeat(32), "08".repeat(32), 99)], // its output of another size
    ];
    for (const [action, text] of cases) write(path.join(bad, action.slice(0, 2), `${action}-a`), text);
    fs.mkdirSync(path.join(bad, "06", `${"06".repeat(32)}-d`), { recursive: true });
    write(path.join(bad, "08", `${"08".repeat(32)}-d`), "abc");
    const answers = await session(
      ["-shared", bad, "-own", path.join(tempDir("mcq-gco-own2-"), "own")],
      cases.map(([action], i) => ({ ID: i + 1, Command: "get", ActionID: b64(action) })),
    );
    expect(answers.slice(1)).toEqual(cases.map((_, i) => ({ ID: i + 1, Miss: true })));
  });
});
