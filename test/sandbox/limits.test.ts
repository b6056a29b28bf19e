/**
 * Resource limits inside the sandbox (--tool-max-cpu-seconds, --tool-max-memory-mb): prlimit between bwrap
 * and the tool sets RLIMIT_CPU and RLIMIT_DATA. A project-local "ruff" that spins, or allocates, is stopped
 * by the limit (not by the timeout), and tool_capabilities reports the limits it enforces.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../helpers/in-process.js";
import { tempDir } from "../helpers/tools.js";
import { limitsFrom, probeSandbox } from "../../src/exec/sandbox/launch.js";
import { bwrapArgv, type SandboxProfile } from "../../src/exec/sandbox/profile.js";

beforeAll(() => {
  expect(probeSandbox()).toMatchObject({ available: true });
});

/** A Python project whose `.venv/bin/ruff` runs `script` (Node) and then prints one finding. */
function projectWithRuff(script: string): string {
  const project = tempDir("mcq-limits-");
  fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
  fs.writeFileSync(path.join(project, "app.py"), "x = 1\n");
  const bin = path.join(project, ".venv", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "python"), "");
  fs.writeFileSync(
    path.join(bin, "ruff"),
    `#!${process.execPath}
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
${script}
`,
    { mode: 0o755 },
  );
  return project;
}

async function lintWith(project: string, flags: string[]) {
  const s = await connectInProcess({
    cwd: project,
    args: [
      "--sandbox",
      "required",
      "--result-cache",
      "false",
      "--allowed-paths",
      project,
      "--timeout",
      "60",
      ...flags,
    ],
  });
  try {
    return {
      lint: await s.call("lint", { path: project, linter: "ruff" }),
      caps: await s.call("tool_capabilities", {}),
    };
  } finally {
    await s.close();
  }
}

describe("resource limits in the sandbox", () => {
  it("the argv puts prlimit between bwrap and the tool, only when limits are set", () => {
    const profile: SandboxProfile = {
      system: [],
      readOnly: [],
      readWrite: [],
      home: "/root",
      network: false,
      hidden: [],
      cwd: "/p",
    };
    expect(bwrapArgv(profile, "/usr/bin/ruff", ["check"]).slice(-4)).toEqual([
      "/p",
      "--",
      "/usr/bin/ruff",
      "check",
    ]);
    const limited = { ...profile, prlimit: "/usr/bin/prlimit", limits: { cpuSeconds: 2, dataBytes: 1024 } };
    const argv = bwrapArgv(limited, "/usr/bin/ruff", ["check"]);
    expect(argv.slice(argv.indexOf("--"))).toEqual([
      "--",
      "/usr/bin/prlimit",
      "--cpu=2",
      "--data=1024",
      "--",
      "/usr/bin/ruff",
      "check",
    ]);
    expect(limitsFrom({ toolMaxCpuSeconds: 0, toolMaxMemoryMb: 0 })).toBeUndefined();
    expect(limitsFrom({ toolMaxCpuSeconds: 5, toolMaxMemoryMb: 1 }, true)).toEqual({
      dataBytes: 1024 * 1024,
    });
  });

  it("a tool that spins is killed at --tool-max-cpu-seconds, well before the timeout", async () => {
    const project = projectWithRuff("for (;;) {}");
    const { lint, caps } = await lintWith(project, ["--tool-max-cpu-seconds", "1"]);
    expect(lint.success, JSON.stringify(lint)).toBe(false);
    expect(JSON.stringify(lint)).not.toMatch(/timed out/i);
    expect(JSON.stringify(lint.notes)).toContain("CPU limit of 1 s (--tool-max-cpu-seconds)");
    const ruff = (caps.tools as { name: string; sandbox: { limits: Record<string, unknown> } }[]).find(
      (t) => t.name === "ruff",
    );
    expect(ruff?.sandbox.limits).toMatchObject({ cpu_seconds: 1, memory_bytes: null });
  }, 120_000);

  it("an allocation past --tool-max-memory-mb fails in the tool; without the limit it succeeds", async () => {
    const script = `const b = Buffer.alloc(400 * 1024 * 1024, 1); console.error("allocated " + b.length); process.exit(3);`;
    const limited = await lintWith(projectWithRuff(script), ["--tool-max-memory-mb", "200"]);
    expect(JSON.stringify(limited.lint)).toContain("allocation failed");
    const ruff = (
      limited.caps.tools as {
        name: string;
        memory_cap_mb: number | null;
        sandbox: { limits: Record<string, unknown> };
      }[]
    ).find((t) => t.name === "ruff");
    expect(ruff).toMatchObject({
      memory_cap_mb: 200,
      sandbox: { limits: { memory_bytes: 200 * 1024 * 1024 } },
    });
    const free = await lintWith(projectWithRuff(script), []);
    expect(JSON.stringify(free.lint)).toContain(`allocated ${400 * 1024 * 1024}`);
  }, 120_000);
});
