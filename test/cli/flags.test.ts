// One flag parser for every entry point (issue 43): the same mistake gets the same words from the server,
// `check`, `hook`, `policy` and `client`, each after its command's name, with exit 2; every command's
// --help has the one layout. Real processes of the built CLI.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine, UsageError } from "../../src/cli/args.js";
import { CLI } from "../helpers/server.js";

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-flags-"));

function cli(...argv: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...argv], { cwd, encoding: "utf8", timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Each entry point as typed, with a flag it takes a value for. */
const ENTRIES: { name: string; argv: string[]; valued: string }[] = [
  { name: "mcp-code-quality", argv: [], valued: "--timeout" },
  { name: "mcp-code-quality", argv: ["serve"], valued: "--timeout" },
  { name: "mcp-code-quality", argv: ["client"], valued: "--tool" },
  { name: "mcp-code-quality check", argv: ["check"], valued: "--sarif" },
  { name: "mcp-code-quality policy compile", argv: ["policy", "compile"], valued: "--out" },
  {
    name: "mcp-code-quality hook install pre-commit",
    argv: ["hook", "install", "pre-commit"],
    valued: "--project",
  },
  {
    name: "mcp-code-quality hook install claude-code",
    argv: ["hook", "install", "claude-code"],
    valued: "--command",
  },
];

describe("one flag parser for every command", () => {
  it.each(ENTRIES)("$name: an unknown flag, a missing value, a value that looks like a flag", (entry) => {
    const unknown = cli(...entry.argv, "--bogus");
    expect(unknown.status).toBe(2);
    const help = entry.name === "mcp-code-quality" ? "mcp-code-quality" : entry.name;
    expect(unknown.stderr).toBe(
      `${entry.name === "mcp-code-quality" ? "mcp-code-quality" : entry.name}: --bogus: unknown flag (see ${help} --help)\n`,
    );
    expect(unknown.stdout).toBe("");

    const missing = cli(...entry.argv, entry.valued);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`${entry.name}: ${entry.valued}: needs a value\n`);

    const dashed = cli(...entry.argv, entry.valued, "-1");
    expect(dashed.status).toBe(2);
    expect(dashed.stderr).toBe(
      `${entry.name}: ${entry.valued}: needs a value (a value starting with "-": ${entry.valued}=-1)\n`,
    );
  });

  it("a switch given a value, a stray argument and an unknown command say so in the shared words", () => {
    expect(cli("check", "--fix=yes").stderr).toBe("mcp-code-quality check: --fix: takes no value\n");
    expect(cli("hook", "install", "claude-code", "--local=1").stderr).toBe(
      "mcp-code-quality hook install claude-code: --local: takes no value\n",
    );
    expect(cli("--port", "80", "extra").stderr).toBe(
      'mcp-code-quality: "extra": unexpected argument (flags look like --name value)\n',
    );
    expect(cli("serve", "extra").stderr).toBe(
      'mcp-code-quality: "extra": unexpected argument (flags look like --name value)\n',
    );
    expect(cli("policy", "compile", "extra").stderr).toBe(
      'mcp-code-quality policy compile: "extra": unexpected argument (flags look like --name value)\n',
    );
    for (const [argv, parent] of [
      [["frobnicate"], "mcp-code-quality"],
      [["hook", "frobnicate"], "mcp-code-quality hook"],
      [["hook", "install", "frobnicate"], "mcp-code-quality hook install"],
      [["policy", "frobnicate"], "mcp-code-quality policy"],
    ] as const) {
      const r = cli(...argv);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`${parent}: frobnicate: unknown command (see ${parent} --help)\n`);
    }
  });

  it("numbers are refused in the same words by the server and by check", () => {
    expect(cli("--port", "abc").stderr).toBe(
      'mcp-code-quality: --port: expected an integer in 0-65535, got "abc"\n',
    );
    expect(cli("check", "--timeout", "0").stderr).toBe(
      "mcp-code-quality check: --timeout: must be in 1-86400, got 0\n",
    );
    expect(cli("serve", "--timeout", "0").stderr).toBe(
      "mcp-code-quality: --timeout: must be in 1-86400, got 0\n",
    );
  });

  it("nothing a refused command line names is created", () => {
    const target = path.join(cwd, "no-such-project");
    expect(cli("hook", "install", "pre-commit", "--project", target, "--bogus").status).toBe(2);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("every command's --help has the one layout: Usage, then its flags under a title", () => {
    for (const argv of [
      ["--help"],
      ["serve", "--help"],
      ["check", "--help"],
      ["hook", "--help"],
      ["policy", "-h"],
    ]) {
      const r = cli(...argv);
      expect(r.status, argv.join(" ")).toBe(0);
      expect(r.stdout).toMatch(/^Usage: mcp-code-quality /);
      expect(r.stdout).toMatch(/\n\nOptions:\n {2}--/);
      expect(r.stdout).toMatch(/\n {2}-h, --help {2,}print this help\n/);
    }
    const top = cli("--help").stdout;
    for (const command of ["[serve]", "check", "hook install", "policy compile", "client"])
      expect(top).toContain(`\n  mcp-code-quality ${command}`);
  });

  it("the client command is --mode client: it needs its tool", () => {
    const r = cli("client", "--arguments", "{}");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--tool");
  });
});

describe("parseCommandLine", () => {
  const line = {
    name: "x",
    flags: [
      { flag: "--n", help: "" },
      { flag: "--on", type: "boolean" as const, help: "" },
      { flag: "--many", multiple: true, help: "" },
    ],
    positionals: true,
  };

  it("reads values, switches, repeats, --name=value and positionals after --", () => {
    expect(parseCommandLine(line, ["--n=3", "--on", "--many", "a", "--many=b", "p", "--", "--n"])).toEqual({
      values: { n: "3", on: true, many: ["a", "b"] },
      positionals: ["p", "--n"],
    });
  });

  it("throws UsageError naming the flag", () => {
    expect(() => parseCommandLine(line, ["--n"])).toThrow(UsageError);
    expect(() => parseCommandLine(line, ["--n"])).toThrow("--n: needs a value");
    expect(() => parseCommandLine({ ...line, positionals: false }, ["p"])).toThrow(
      '"p": unexpected argument (flags look like --name value)',
    );
  });
});
