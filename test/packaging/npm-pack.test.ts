/**
 * Installable as users install MCP servers: the `npm pack` tarball (of the built dist/) holds what the
 * command needs and nothing else, installs into a scratch prefix (from the local npm cache, the registry
 * as fallback), and its `mcp-code-quality` bin runs `check` and starts the server.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** The relative link targets of a Markdown text (outside code), without their #anchors. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const targets: string[] = [];
  for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = (m[1] as string).split("#")[0] as string;
    if (target && !/^[a-z]+:/i.test(target)) targets.push(target);
  }
  return targets;
}

interface PackInfo {
  filename: string;
  size: number;
  files: { path: string }[];
}

describe("the npm package", () => {
  let pack: PackInfo;
  let bin: string;
  let installed: ReturnType<typeof spawnSync>;
  const scratch = tempDir("mcq-pack-");
  beforeAll(() => {
    // dist/ is built before the tests run (`npm test` builds); `prepare` would only build it again.
    const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(packed.status, packed.stderr).toBe(0);
    pack = (JSON.parse(packed.stdout) as PackInfo[])[0] as PackInfo;
    const prefix = path.join(scratch, "prefix");
    installed = spawnSync(
      "npm",
      [
        "install",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        path.join(scratch, pack.filename),
      ],
      { cwd: scratch, encoding: "utf8", timeout: 300_000 },
    );
    bin = path.join(prefix, "node_modules", ".bin", "mcp-code-quality");
  }, 320_000);

  it("holds the built JavaScript, the Ruby worker and the README, and no sources, tests or maps", () => {
    const files = pack.files.map((f) => f.path);
    for (const f of [
      "package.json",
      "README.md",
      "dist/cli.js",
      "dist/eslint-typescript-mcp.js",
      "dist/check/command.js",
      "dist/policy/shipped.json",
      "dist/policy/git/options.json",
      "dist/hook.js",
      "dist/bundle/hook.cjs",
      "dist/bundle/hook-snapshot.cjs",
      "dist/bundle/cli.mjs",
      "dist/build-id.json",
      "ruby/rubocop_worker.rb",
    ])
      expect(files).toContain(f);
    expect(
      files.filter((f) => /^(src|test|bench|scripts)\/|\.map$|\.ts$|\.blob$|\.built-by$/.test(f)),
    ).toEqual([]);
    // Every compiled module and bundle chunk the build made is in it (one left out would fail at import).
    const built = spawnSync("find", ["dist", "-name", "*.js", "-o", "-name", "*.mjs"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(files.filter((f) => f.startsWith("dist/") && /\.m?js$/.test(f)).sort()).toEqual(
      built.stdout.trim().split("\n").sort(),
    );
  });

  it("ships what the README and the shipped docs link to, the docs and the LICENSE", () => {
    const files = new Set(pack.files.map((f) => f.path));
    expect(files).toContain("LICENSE");
    expect(files).toContain("docs/check.md");
    const shippedMarkdown = [...files].filter((f) => f === "README.md" || /^docs\/.*\.md$/.test(f));
    const broken: string[] = [];
    for (const doc of shippedMarkdown) {
      for (const target of relativeLinks(fs.readFileSync(path.join(REPO_ROOT, doc), "utf8"))) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target));
        const folder = resolved.endsWith("/") ? resolved : `${resolved}/`;
        if (!files.has(resolved) && ![...files].some((f) => f.startsWith(folder)))
          broken.push(`${doc} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("installs into a scratch prefix and its bin runs check", () => {
    expect(installed.status, String(installed.stderr)).toBe(0);
    const env = { ...process.env, PATH: PATH_WITH_TOOLS };
    const run = (dir: string) =>
      spawnSync(bin, ["check", dir, "--json"], { cwd: CHECK_FIXTURES, env, encoding: "utf8" });
    const findings = run("python");
    expect(findings.status).toBe(1);
    expect(
      (JSON.parse(findings.stdout) as { findings: { rule_id: string }[] }).findings.map((f) => f.rule_id),
    ).toContain("F401");
    expect(run("python-clean").status).toBe(0);
  });

  it("its policy snapshot is used where it was installed", () => {
    expect(installed.status, String(installed.stderr)).toBe(0);
    const root = path.join(path.dirname(path.dirname(bin)), "mcp-code-quality");
    const probe = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(path.join(root, "dist/policy/shipped-snapshot.js"))});
         const s = m.loadShippedSnapshot(${JSON.stringify(path.join(root, "policy"))});
         console.log(JSON.stringify(s ? s.data.policies[0].source.file : null));`,
      ],
      { encoding: "utf8" },
    );
    expect(probe.status, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toBe(path.join(root, "policy", "policies.yaml"));
  });

  it("its Claude Code hook decides where it was installed (git's option table included)", () => {
    expect(installed.status, String(installed.stderr)).toBe(0);
    const root = path.join(path.dirname(path.dirname(bin)), "mcp-code-quality");
    // The bundled entry `hook install claude-code` writes, which finds its WebAssembly in node_modules.
    const r = spawnSync(process.execPath, [path.join(root, "dist", "bundle", "hook.cjs"), "claude-code"], {
      input: JSON.stringify({
        tool_name: "Bash",
        cwd: scratch,
        tool_input: { command: "git commit --no-verif -m x" },
      }),
      env: { ...process.env, CLAUDE_PROJECT_DIR: scratch },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("hook install claude-code in a project depending on the package writes the shared line, which denies", () => {
    expect(installed.status, String(installed.stderr)).toBe(0);
    // The prefix is a project with the package as its dependency, as `npm install --save-dev` makes it.
    const project = path.join(scratch, "prefix");
    const install = spawnSync(bin, ["hook", "install", "claude-code", "--project", project], {
      encoding: "utf8",
    });
    expect(install.status, install.stderr).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(project, ".claude", "settings.json"), "utf8"));
    const command = settings.hooks.PreToolUse[0].hooks[0].command as string;
    expect(command).not.toContain(scratch);
    const r = spawnSync("sh", ["-c", command], {
      input: JSON.stringify({
        tool_name: "Bash",
        cwd: project,
        tool_input: { command: "git commit -n -m x" },
      }),
      env: { ...process.env, CLAUDE_PROJECT_DIR: project },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toContain("hooks.no_verify");
  });

  it("hook install claude-code --local builds the start-up snapshot in the installed package, and the line it writes denies", () => {
    expect(installed.status, String(installed.stderr)).toBe(0);
    const root = path.join(path.dirname(path.dirname(bin)), "mcp-code-quality");
    const project = path.join(scratch, "hooked");
    fs.mkdirSync(project);
    const install = spawnSync(bin, ["hook", "install", "claude-code", "--project", project, "--local"], {
      encoding: "utf8",
    });
    expect(install.status, install.stderr).toBe(0);
    const blob = path.join(root, "dist", "bundle", `hook-snapshot-${process.version}-${process.arch}.blob`);
    expect(install.stdout).toContain(`start-up snapshot ${blob}`);
    const settings = JSON.parse(
      fs.readFileSync(path.join(project, ".claude", "settings.local.json"), "utf8"),
    );
    const command = settings.hooks.PreToolUse[0].hooks[0].command as string;
    expect(command).toContain(`--snapshot-blob '${blob}'`);
    const input = JSON.stringify({
      tool_name: "Bash",
      cwd: project,
      tool_input: { command: "git commit -n -m x" },
    });
    for (const argv of [
      ["sh", "-c", command],
      [process.execPath, "--snapshot-blob", blob, "claude-code"],
    ]) {
      const r = spawnSync(argv[0] as string, argv.slice(1), {
        input,
        env: { ...process.env, CLAUDE_PROJECT_DIR: project },
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason).toContain("hooks.no_verify");
    }
  });

  let server: ReturnType<typeof spawn> | undefined;
  afterAll(() => server?.kill("SIGTERM"));

  it("and starts the HTTP server", async () => {
    server = spawn(bin, ["--mode", "server", "--port", "0", "--audit-log", path.join(scratch, "audit.log")], {
      cwd: CHECK_FIXTURES,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    const url = await new Promise<string>((resolve, reject) => {
      server!.stderr!.on("data", (c: Buffer) => {
        err += c.toString();
        const m = /listening on (http:\/\/\S+?) /.exec(err);
        if (m) resolve(m[1] as string);
      });
      server!.once("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
    });
    const health = (await (await fetch(`${url}/health`)).json()) as { status: string; tools: number };
    expect(health.status).toBe("ok");
    expect(health.tools).toBeGreaterThan(5);
  });
});
