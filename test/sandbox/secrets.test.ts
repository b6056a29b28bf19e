/**
 * The server's secrets never reach a tool (issue 38): the remote cache's token and signing secret, given as
 * environment variables as the README shows, were visible to every tool, and with them a forged artifact made
 * a teammate's server answer `passed: true`. Each tool here prints the environment it was given: a project's
 * own ruff (project code), a tool of the server's that runs none (ty on PATH: its family's allowlist only), a
 * pytest test, and an ESLint config in the warm worker.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

/** What the server is started with: its own tokens, the usual credentials, and a harmless switch. */
const SECRETS = {
  MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN: "secret-value-rc-token",
  MCP_CODE_QUALITY_REMOTE_CACHE_SECRET: "secret-value-rc-signing",
  MCP_CODE_QUALITY_AUTH_TOKEN: "secret-value-auth",
  TURBO_TOKEN: "secret-value-turbo",
  TURBO_REMOTE_CACHE_SIGNATURE_KEY: "secret-value-turbo-sig",
  AWS_ACCESS_KEY_ID: "AKIASECRETVALUE",
  AWS_SECRET_ACCESS_KEY: "secret-value-aws",
  GITHUB_TOKEN: "secret-value-github",
  NPM_TOKEN: "secret-value-npm",
  ANTHROPIC_API_KEY: "secret-value-anthropic",
  DATABASE_PASSWORD: "secret-value-db",
  PGPASSWORD: "secret-value-pg",
  MYSQL_PWD: "secret-value-mysql",
  ZZ_SECRETKEY: "secret-value-joined",
  ZZ_ACCESSTOKEN: "secret-value-joined-token",
  GIT_CONFIG_PARAMETERS: "'http.extraheader=Authorization: Bearer secret-value-git'",
  // What a later red team's pytest test still read.
  DB_PASS: "secret-value-db-pass",
  SMTP_PASS: "secret-value-smtp",
  TOKEN2: "secret-value-token2",
  GITHUB_TOKEN2: "secret-value-github2",
  ZZ_APITOKEN2: "secret-value-apitoken2",
  SESSION_COOKIE: "secret-value-cookie",
  BEARER: "secret-value-bearer",
  CREDS: "secret-value-creds",
  AUTH0_CLIENT: "secret-value-auth0",
  // Names that say nothing, values that do: a URL's password, a token as a URL's user.
  DATABASE_URL: "postgres://app:secret-value-db-url@db.internal:5432/app",
  SENTRY_DSN: "https://secretvalue0123456789abcdef@o1.ingest.sentry.io/42",
  MCQ_MIRRORS: "https://mirror.internal/a,https://deploy:secret-value-mirror@mirror2.internal/b",
};
// A development default on the local machine and a login that is no key stay (a project's CI has them).
const BENIGN = {
  MCQ_BENIGN_SWITCH: "benign-value",
  MCQ_LOCAL_DB: "postgres://ci:benign-local-db@localhost:5432/test",
  MCQ_GIT_URL: "ssh://git@github.com/benign/repo",
};

function expectNoSecret(text: string): void {
  expect(text).not.toMatch(/secret-value|secretvalue|AKIASECRETVALUE/);
}

function expectBenign(text: string): void {
  expect(text).toContain("benign-value");
  expect(text).toContain("benign-local-db@localhost");
  expect(text).toContain("ssh://git@github.com/benign/repo");
}

/** The environment as a JSON line on stdout (a stand-in tool written in Node). */
const PRINT_ENV = `console.log("ENV " + JSON.stringify(process.env));`;

describe("the environment a tool gets", () => {
  const root = tempDir("mcq-secrets-");
  const at = (...p: string[]) => path.join(root, ...p);
  const bin = tempDir("mcq-secrets-bin-");
  let s: Connected;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    // A project whose virtualenv's ruff prints its environment as a finding.
    fs.mkdirSync(at("py", ".venv", "bin"), { recursive: true });
    fs.writeFileSync(at("py", "pyproject.toml"), '[project]\nname = "p"\n');
    fs.writeFileSync(at("py", "app.py"), "x = 1\n");
    fs.writeFileSync(at("py", ".venv", "bin", "python"), "");
    fs.writeFileSync(
      at("py", ".venv", "bin", "ruff"),
      `#!${process.execPath}
if (process.argv.includes("--version")) { console.log("ruff 0.17.6"); process.exit(0); }
console.log(JSON.stringify({ code: "X1", message: "ENV " + JSON.stringify(process.env), filename: "app.py", location: { row: 1, column: 1 } }));
`,
      { mode: 0o755 },
    );
    // ty on PATH, outside every root: the server's own tool, which runs no project code.
    fs.writeFileSync(
      path.join(bin, "ty"),
      `#!${process.execPath}
if (process.argv.includes("--version")) { console.log("ty 0.0.1"); process.exit(0); }
${PRINT_ENV}
process.exit(2);
`,
      { mode: 0o755 },
    );
    // A pytest suite whose test fails with the environment as its message.
    fs.mkdirSync(at("tests-project", "tests"), { recursive: true });
    fs.writeFileSync(
      at("tests-project", "tests", "test_env.py"),
      "import json, os\n\n\ndef test_env():\n    assert False, 'ENV ' + json.dumps(dict(os.environ))\n",
    );
    // An ESLint config that fails with the environment.
    fs.mkdirSync(at("js", "src"), { recursive: true });
    fs.writeFileSync(at("js", "package.json"), '{ "name": "j", "type": "module" }\n');
    fs.writeFileSync(at("js", "src", "a.js"), "export const a = 1;\n");
    fs.writeFileSync(
      at("js", "eslint.config.js"),
      `throw new Error("ENV " + JSON.stringify(process.env));\n`,
    );
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
      env: { ...SECRETS, ...BENIGN, PATH: `${bin}:${process.env.PATH}` },
    });
  });
  afterAll(() => s?.close());

  it("a project's own tool sees no secret, and the rest of the environment as the project's CI would", async () => {
    const r = await s.call("lint", { path: at("py"), linter: "ruff" });
    const text = JSON.stringify(r);
    expect(text).toContain("ENV ");
    expectNoSecret(text);
    expectBenign(text);
    expect(text).toContain("PATH");
  });

  it("a tool that runs no project code gets its family's allowlist only", async () => {
    const r = await s.call("type_check", { path: at("py", "app.py"), checker: "ty" });
    const text = JSON.stringify(r);
    expect(text, text.slice(0, 1000)).toContain("ENV ");
    expectNoSecret(text);
    expect(text).not.toContain("MCQ_BENIGN_SWITCH");
    expect(text).toContain('\\"PATH\\"');
  });

  it.skipIf(missing("pytest"))("a test run sees no secret", async () => {
    const r = await s.call("run_tests", {
      path: at("tests-project", "tests"),
      working_dir: at("tests-project"),
    });
    const text = JSON.stringify(r);
    expect(text, text.slice(0, 1000)).toContain("ENV ");
    expectNoSecret(text);
    expectBenign(text);
  });

  it("an ESLint config in the warm worker sees no secret", async () => {
    const r = await s.call("lint", { path: at("js"), linter: "eslint" });
    const text = JSON.stringify(r);
    expect(text, text.slice(0, 1000)).toContain("ENV ");
    expectNoSecret(text);
    expectBenign(text);
  });

  it("tool_capabilities lists what each family gets", async () => {
    const caps = await s.call("tool_capabilities", {});
    expect(caps.environment).toMatchObject({
      never: expect.arrayContaining(["MCP_CODE_QUALITY_*", "TURBO_*", "AWS_*"]),
      tools_without_project_code: { families: { go: expect.arrayContaining(["GO*"]) } },
    });
    const tools = caps.tools as { name: string; environment?: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === "ty")?.environment).toMatchObject({ family: "python" });
    expect(tools.find((t) => t.name === "npm")?.environment).toMatchObject({
      credentials_it_declares: expect.arrayContaining(["NPM_TOKEN"]),
    });
  });
});
