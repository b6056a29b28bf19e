/**
 * The command line's bundle (dist/bundle/cli.mjs, scripts/bundle-cli.mjs) is what dist/cli.js runs, holds
 * all of our code it needs (the package's other files named from the package root, wherever it is), and
 * answers as the unbundled modules do; the build id the build recorded is the one the code computes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeBuildId } from "../../src/cache/build-id.js";
import { CODE_DIR, PACKAGE_ROOT } from "../../src/package-root.js";
import { CHECK_FIXTURES, PATH_WITH_TOOLS } from "../helpers/check.js";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const DIST = path.join(REPO_ROOT, "dist");
const env = { ...process.env, PATH: PATH_WITH_TOOLS };

/** The findings of `check python --json`, without what differs between runs. */
function findings(stdout: string): unknown {
  const report = JSON.parse(stdout) as { findings: Record<string, unknown>[] };
  return report.findings.map((f) => ({ ...f, duration_ms: undefined }));
}

describe("the bundled command line", () => {
  it("under the test runner the package root is the repository and the code is src/", () => {
    expect(PACKAGE_ROOT).toBe(REPO_ROOT);
    expect(CODE_DIR).toBe(path.join(REPO_ROOT, "src"));
  });

  it("dist/build-id.json holds the hash of dist/ the code would compute", () => {
    const recorded = JSON.parse(fs.readFileSync(path.join(DIST, "build-id.json"), "utf8")) as { id: string };
    expect(recorded.id).toBe(computeBuildId(DIST));
  });

  it("the build id changes with the code and with what ships beside it (Ruby, data, policies), nothing else", () => {
    const pkg = tempDir("mcq-build-id-");
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(pkg, rel)), { recursive: true });
      fs.writeFileSync(path.join(pkg, rel), text);
    };
    write("dist/main.js", "export {};\n");
    write("ruby/rubocop_worker.rb", "puts 1\n");
    write("ruby/minitest/mcq_report_plugin.rb", "puts 2\n");
    write("data/ruff/rules.json", "[]\n");
    write("policy/shipped.yaml", "policies: []\n");
    const dist = path.join(pkg, "dist");
    const ids = new Set([computeBuildId(dist)]);
    // The recorded id itself, and files outside the shipped folders, change nothing.
    write("dist/build-id.json", '{"id":"x"}\n');
    write("README.md", "# readme\n");
    expect(computeBuildId(dist)).toBe([...ids][0]);
    for (const [rel, text] of [
      ["dist/main.js", "export const a = 1;\n"],
      ["ruby/rubocop_worker.rb", "puts 3\n"],
      ["ruby/minitest/mcq_report_plugin.rb", "puts 4\n"],
      ["data/ruff/rules.json", "[1]\n"],
      ["policy/shipped.yaml", "policies: [1]\n"],
      ["ruby/new_helper.rb", "puts 5\n"],
    ] as const) {
      write(rel, text);
      const id = computeBuildId(dist);
      expect(ids.has(id), rel).toBe(false);
      ids.add(id);
    }
  });

  it("runs check from a copy of the package whose unbundled main modules are gone, as the modules do", () => {
    const audit = ["--audit-log", path.join(tempDir("mcq-bundle-audit-"), "audit.log")];
    const args = ["check", "python", "--json", ...audit];
    // The modules, started without the bundle.
    const modules = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(path.join(DIST, "main.js"))});
         m.run(${JSON.stringify(args)}, ${JSON.stringify(path.join(DIST, "cli.js"))});`,
      ],
      { cwd: CHECK_FIXTURES, env, encoding: "utf8" },
    );
    expect(modules.status, modules.stderr).toBe(1);

    const copy = tempDir("mcq-bundle-copy-");
    for (const f of ["package.json", "dist", "policy", "ruby", "data"])
      fs.cpSync(path.join(REPO_ROOT, f), path.join(copy, f), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(copy, "node_modules"));
    fs.rmSync(path.join(copy, "dist", "main.js"));
    fs.rmSync(path.join(copy, "dist", "check"), { recursive: true });
    const bundled = spawnSync(process.execPath, [path.join(copy, "dist", "cli.js"), ...args], {
      cwd: CHECK_FIXTURES,
      env,
      encoding: "utf8",
    });
    expect(bundled.status, bundled.stderr).toBe(1);
    expect(findings(bundled.stdout)).toEqual(findings(modules.stdout));
    expect(JSON.stringify(findings(bundled.stdout))).toContain("F401");
  });
});
