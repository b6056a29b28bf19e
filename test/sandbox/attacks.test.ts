/**
 * What the sandbox stops: for each capability, an attack that fails with `--sandbox required` and succeeds with
 * `--sandbox off`, so it fails only because of the sandbox. Real bubblewrap, the real runner and engine, the
 * MCP SDK client; the "tools" are stand-ins only where no real tool can express the attack (a project-local
 * ruff, pytest tests, a provider script).
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../helpers/in-process.js";
import { connectStdio } from "../helpers/server.js";
import { FixtureAdvisor } from "../helpers/fixture-advisor.js";
import { FIXTURES } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { POLICY_ADVISOR_SERVICE } from "../../src/policy/advisor.js";
import { runBounded } from "../../src/exec/runner.js";
import { probeSandbox, type SandboxMode } from "../../src/exec/sandbox/launch.js";
import { reportChannel } from "../helpers/channel.js";

const MODES: SandboxMode[] = ["required", "off"];
const sandboxed = (mode: SandboxMode) => mode === "required";

beforeAll(() => {
  // These tests prove the sandbox: without a working bubblewrap they must fail, not skip.
  expect(probeSandbox()).toMatchObject({ available: true });
});

/** A Python project whose `.venv/bin/ruff` is `script` (a Node program): lint runs it as the project's ruff. */
function projectWithRuff(script: string): string {
  const project = tempDir("mcq-sbx-proj-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
  const bin = path.join(project, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "");
  fs.writeFileSync(
    path.join(bin, "ruff"),
    `#!${process.execPath}
const fs = require("node:fs");
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
${script}
`,
    { mode: 0o755 },
  );
  return project;
}

/** One diagnostic as ruff's `--output-format json-lines` prints it. */
const finding = (message: string) =>
  JSON.stringify({ code: "X1", message, filename: "app.py", location: { row: 1, column: 1 } });

describe.each(MODES)("with --sandbox %s", (mode) => {
  it("a read-only lint whose tool writes into the project writes nothing", async () => {
    const project = projectWithRuff(`
try { fs.writeFileSync(${JSON.stringify("PROJECT")} + "/planted.py", "import os\\n"); } catch {}
`);
    fs.writeFileSync(
      path.join(project, ".venv", "bin", "ruff"),
      fs.readFileSync(path.join(project, ".venv", "bin", "ruff"), "utf8").replace("PROJECT", project),
    );
    const s = await connectInProcess({
      cwd: project,
      args: ["--sandbox", mode, "--result-cache", "false", "--allowed-paths", project],
    });
    try {
      const r = await s.call("lint", { path: project, linter: "ruff" });
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(fs.existsSync(path.join(project, "planted.py"))).toBe(!sandboxed(mode));
    } finally {
      await s.close();
    }
  });

  it("a folder swapped for a link to outside the roots while the tool runs is not read through", async () => {
    const outside = tempDir("mcq-sbx-outside-");
    fs.writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE-SECRET");
    // The tool says it started through a FIFO and waits for a file the test makes, both in a root of their own.
    const sync = reportChannel("mcq-sbx-sync-");
    const started = sync.fifo("started");
    const project = projectWithRuff(`
const sync = ${JSON.stringify(sync.dir)};
fs.writeFileSync(sync + "/started", "started");
const until = Date.now() + 20000;
while (!fs.existsSync(sync + "/go") && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
let text;
try { text = fs.readFileSync(${JSON.stringify("PROJECT")} + "/data/secret.txt", "utf8"); } catch (e) { text = "unreadable: " + e.code; }
console.log(${JSON.stringify(finding("MSG"))}.replace("MSG", text));`);
    const ruff = path.join(project, ".venv", "bin", "ruff");
    fs.writeFileSync(ruff, fs.readFileSync(ruff, "utf8").replace("PROJECT", project));
    fs.mkdirSync(path.join(project, "data"));
    fs.writeFileSync(path.join(project, "data", "secret.txt"), "inside");
    const s = await connectInProcess({
      cwd: project,
      args: ["--sandbox", mode, "--result-cache", "false", "--allowed-paths", `${project},${sync.dir}`],
    });
    try {
      const call = s.call("lint", { path: project, linter: "ruff" });
      await started.until("started");
      // The server checked the project before the tool started; now the folder becomes a link.
      fs.rmSync(path.join(project, "data"), { recursive: true });
      fs.symlinkSync(outside, path.join(project, "data"));
      fs.writeFileSync(path.join(sync.dir, "go"), "");
      const r = await call;
      const text = JSON.stringify(r);
      if (sandboxed(mode)) {
        expect(text).not.toContain("OUTSIDE-SECRET");
        expect(text).toContain("unreadable: ENOENT");
      } else expect(text).toContain("OUTSIDE-SECRET");
    } finally {
      started.close();
      await s.close();
    }
  });

  it("a tsconfig `extends` outside the roots is invisible, and the result says so naming --allowed-paths", async () => {
    const outside = tempDir("mcq-sbx-shared-");
    fs.writeFileSync(
      path.join(outside, "base.json"),
      JSON.stringify({ compilerOptions: { noUnusedLocals: true } }),
    );
    const project = tempDir("mcq-sbx-extends-");
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        extends: path.join(outside, "base.json"),
        compilerOptions: { noEmit: true },
        include: ["src"],
      }),
    );
    fs.mkdirSync(path.join(project, "src"));
    // An unused local: an error only under the outside config's `noUnusedLocals`.
    fs.writeFileSync(
      path.join(project, "src", "a.ts"),
      "export function f(): number {\n  const unused = 1;\n  return 2;\n}\n",
    );
    // The built server: tsc runs in its worker (dist/adapters/js/workers), started in the sandbox.
    const s = await connectStdio({
      cwd: project,
      args: ["--sandbox", mode, "--result-cache", "false", "--allowed-paths", project],
    });
    try {
      const r = await s.call("type_check", { path: project, checker: "tsc" });
      const text = JSON.stringify(r);
      if (sandboxed(mode)) {
        expect(text).not.toContain("TS6133");
        expect(text).toContain("TS5083");
        expect(r.notes).toEqual(
          expect.arrayContaining([
            expect.stringMatching(
              new RegExp(
                `could not see .*base\\.json.*outside the allowed paths \\(${project}\\).*--allowed-paths`,
              ),
            ),
          ]),
        );
      } else {
        expect(text).toContain("TS6133");
        expect(text).not.toContain("could not see");
      }
    } finally {
      await s.close();
    }
  });

  it("a setsid grandchild that clears its environment does not outlive the timeout", async () => {
    const marker = `97.${process.pid}${mode === "off" ? 1 : 2}`;
    const dir = tempDir("mcq-sbx-setsid-");
    const r = await runBounded({
      program: "/bin/sh",
      args: ["-c", `setsid env -i /bin/sleep ${marker} & sleep 60`],
      cwd: dir,
      timeoutMs: 1000,
      maxOutputBytes: 4096,
      killGraceMs: 200,
      sandbox: { mode, request: { kind: "read", roots: [dir] } },
    });
    expect(r.timedOut).toBe(true);
    const survivors = () =>
      fs
        .readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
          } catch {
            return false;
          }
        })
        .map(Number);
    const until = Date.now() + 3000;
    while (survivors().length && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
    const left = survivors();
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left.length > 0).toBe(!sandboxed(mode));
  });
});

describe.each(MODES)("run_tests with --sandbox %s", (mode) => {
  let listener: net.Server;
  let port: number;
  beforeAll(async () => {
    listener = net.createServer((c) => c.end("hello"));
    await new Promise<void>((res) => listener.listen(0, "127.0.0.1", res));
    port = (listener.address() as net.AddressInfo).port;
  });
  afterAll(() => listener.close());

  it.skipIf(missing("pytest"))(
    "a test cannot read ~/.ssh, write outside the project or, with the network cut, connect to a local port",
    async () => {
      const home = tempDir("mcq-sbx-home-");
      fs.mkdirSync(path.join(home, ".ssh"));
      fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "PRIVATE-KEY");
      const outside = tempDir("mcq-sbx-out-");
      const project = tempDir("mcq-sbx-tests-");
      fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "t"\n');
      fs.mkdirSync(path.join(project, "tests"));
      fs.writeFileSync(
        path.join(project, "tests", "test_escape.py"),
        `import os, socket

def test_reads_ssh_key():
    with open(os.path.expanduser("~/.ssh/id_rsa")) as f:
        assert f.read() == "PRIVATE-KEY"

def test_writes_outside():
    with open(${JSON.stringify(path.join(outside, "written.txt"))}, "w") as f:
        f.write("x")

def test_connects_to_local_port():
    with socket.create_connection(("127.0.0.1", ${port}), timeout=5) as s:
        assert s.recv(5) == b"hello"

def test_writes_inside():
    with open(${JSON.stringify(path.join(project, "inside.txt"))}, "w") as f:
        f.write("x")
`,
      );
      const pyenv = path.join(process.env.HOME ?? "/root", ".pyenv");
      const s = await connectStdio({
        args: ["--sandbox", mode, "--tests-network", "false", "--allowed-paths", project],
        cwd: project,
        env: { HOME: home, PYENV_ROOT: process.env.PYENV_ROOT ?? pyenv, VIRTUAL_ENV: undefined },
      });
      try {
        const r = await s.call("run_tests", { working_dir: project });
        const failed = ((r.failures ?? []) as { node_id: string }[]).map((f) => f.node_id).sort();
        if (sandboxed(mode)) {
          expect(failed, JSON.stringify(r)).toEqual([
            "tests/test_escape.py::test_connects_to_local_port",
            "tests/test_escape.py::test_reads_ssh_key",
            "tests/test_escape.py::test_writes_outside",
          ]);
          expect(fs.existsSync(path.join(outside, "written.txt"))).toBe(false);
        } else {
          expect(failed, JSON.stringify(r)).toEqual([]);
          expect(fs.existsSync(path.join(outside, "written.txt"))).toBe(true);
        }
        // The project itself is the tests' to write either way.
        expect(fs.existsSync(path.join(project, "inside.txt"))).toBe(true);
      } finally {
        await s.close();
      }
    },
  );

  it.skipIf(missing("pytest") || !sandboxed(mode))(
    "a project's run_tests.network: false cuts the network the operator allows, and tool_capabilities says so",
    async () => {
      const project = tempDir("mcq-sbx-tests-net-");
      fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "t"\n');
      fs.mkdirSync(path.join(project, "tests"));
      fs.writeFileSync(
        path.join(project, "tests", "test_net.py"),
        `import socket

def test_connects_to_local_port():
    with socket.create_connection(("127.0.0.1", ${port}), timeout=5) as s:
        assert s.recv(5) == b"hello"
`,
      );
      const settings = path.join(project, ".mcp-code-quality");
      const pyenv = path.join(process.env.HOME ?? "/root", ".pyenv");
      const s = await connectStdio({
        args: ["--sandbox", mode, "--allowed-paths", project],
        cwd: project,
        env: { PYENV_ROOT: process.env.PYENV_ROOT ?? pyenv, VIRTUAL_ENV: undefined },
      });
      try {
        // Without the setting the operator's default holds: the test reaches the port.
        const online = await s.call("run_tests", { working_dir: project });
        expect(online.passed, JSON.stringify(online)).toBe(true);
        fs.mkdirSync(settings);
        fs.writeFileSync(path.join(settings, "config.yaml"), "run_tests:\n  network: false\n");
        const offline = await s.call("run_tests", { working_dir: project });
        expect(offline.passed, JSON.stringify(offline)).toBe(false);
        expect((offline.failures as { node_id: string }[]).map((f) => f.node_id)).toEqual([
          "tests/test_net.py::test_connects_to_local_port",
        ]);
        expect(JSON.stringify(offline.notes)).toMatch(/without network .*run_tests\.network is false/);
        const caps = await s.call("tool_capabilities", {});
        const pytest = (caps.tools as { name: string; tests_network?: unknown }[]).find(
          (t) => t.name === "pytest",
        );
        expect(pytest?.tests_network).toMatchObject({
          operator: true,
          projects: [{ root: fs.realpathSync(project), setting: false, effective: false }],
        });
      } finally {
        await s.close();
      }
    },
  );
});

describe.each(MODES)("an advice provider with --sandbox %s", (mode) => {
  it("cannot write into the project, run git, start /bin/sh or read the server's environment", async () => {
    const project = tempDir("mcq-sbx-advice-");
    fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "shop"\n');
    fs.writeFileSync(path.join(project, "app.py"), "import os\nimport sys\n\nprint(sys.argv)\n");
    const bin = tempDir("mcq-sbx-provider-");
    const provider = path.join(bin, "claude");
    fs.writeFileSync(
      provider,
      `#!/usr/bin/python3
import json, subprocess
tried = {}
def attempt(name, fn):
    try:
        fn()
        tried[name] = "ok"
    except Exception as e:
        tried[name] = "refused: " + type(e).__name__
def write():
    with open(${JSON.stringify(path.join(project, "planted.txt"))}, "w") as f:
        f.write("x")
attempt("write", write)
attempt("git", lambda: subprocess.run(["git", "--version"], check=True, capture_output=True))
attempt("sh", lambda: subprocess.run(["/bin/sh", "-c", "true"], check=True, capture_output=True))
def environ():
    with open("/proc/${process.pid}/environ", "rb") as f:
        assert b"PATH=" in f.read()
attempt("environ", environ)
attempt("read_requested", lambda: open(${JSON.stringify(path.join(project, "app.py"))}).read())
advice = {"summary": json.dumps(tried), "policy_ids": ["python.unused_imports"], "principle_ids": ["no-dead-code"],
          "skill_ids": ["unused-imports"], "steps": ["Delete the import."],
          "rerun": {"tool": "lint_check", "arguments": {"tool": "ruff", "files": ["app.py"]}}, "risks": ["None."]}
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": json.dumps(advice)}))
`,
      { mode: 0o755 },
    );
    const s = await connectInProcess({
      cwd: project,
      args: [
        "--sandbox",
        mode,
        "--allowed-paths",
        project,
        "--advice-provider",
        "claude",
        "--advice-provider-path",
        provider,
        "--advice-allow-network",
        "true",
        "--result-cache",
        "false",
      ],
      services: {
        [POLICY_ADVISOR_SERVICE]: new FixtureAdvisor(path.join(FIXTURES, "policy", "advisor.json")),
      },
    });
    try {
      const r = await s.call("remediation_advice", {
        finding: {
          tool: "ruff",
          rule_id: "F401",
          message: "`os` imported but unused",
          path: "app.py",
          line: 1,
          column: 8,
        },
      });
      expect(r.success, JSON.stringify(r)).toBe(true);
      const tried = JSON.parse(r.summary as string) as Record<string, string>;
      // The file the request names stays readable either way.
      expect(tried.read_requested).toBe("ok");
      for (const attack of ["git", "sh", "environ"])
        expect(tried[attack], attack).toMatch(sandboxed(mode) ? /^refused/ : /^ok$/);
      // Under the sandbox the write lands, if anywhere, in its private /tmp (this project lives under /tmp):
      // what counts is the project on disk.
      expect(fs.existsSync(path.join(project, "planted.txt"))).toBe(!sandboxed(mode));
    } finally {
      await s.close();
    }
  });
});
