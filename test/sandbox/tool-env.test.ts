/** The environment a tool starts with (sandbox/env.ts): pure, from a given server environment. */
import { describe, expect, it } from "vitest";
import { isCredentialName, toolEnvironment } from "../../src/exec/sandbox/env.js";

const SERVER = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  HTTPS_PROXY: "http://proxy:3128",
  PYTHONPATH: "/opt/py",
  GOFLAGS: "-tags=x",
  CARGO_TARGET_DIR: "/t",
  NODE_OPTIONS: "--max-old-space-size=512",
  NODE_ENV: "production",
  MCQ_SWITCH: "1",
  MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN: "s1",
  TURBO_REMOTE_CACHE_SIGNATURE_KEY: "s2",
  AWS_SECRET_ACCESS_KEY: "s3",
  GITHUB_TOKEN: "s4",
  NPM_TOKEN: "s5",
  CARGO_REGISTRY_TOKEN: "s6",
  OPENAI_API_KEY: "s7",
  npm_config__authToken: "s8",
};
const read = { kind: "read" as const, roots: ["/srv/a"] };

describe("toolEnvironment", () => {
  it("a tool that runs no project code gets its family's allowlist, the proxies only with the network", () => {
    const ruff = toolEnvironment("/usr/bin/ruff", "/usr/bin/ruff", read, SERVER);
    expect(ruff.policy).toBe("allowlist");
    expect(Object.keys(ruff.env).sort()).toEqual(["HOME", "LANG", "PATH", "PYTHONPATH"]);
    const go = toolEnvironment("/usr/local/go/bin/go", "/usr/local/go/bin/go", read, SERVER);
    expect(Object.keys(go.env).sort()).toEqual(["GOFLAGS", "HOME", "HTTPS_PROXY", "LANG", "PATH"]);
  });

  it("a tool that runs project code gets every variable but the server's and credentials", () => {
    const eslint = toolEnvironment("/usr/bin/node", "/usr/bin/node", read, SERVER);
    expect(eslint.policy).toBe("all but secrets");
    expect(eslint.env).toMatchObject({
      NODE_ENV: "production",
      MCQ_SWITCH: "1",
      NODE_OPTIONS: expect.any(String),
    });
    for (const k of Object.keys(eslint.env)) expect(SERVER[k as keyof typeof SERVER]).not.toMatch(/^s\d$/);
    // A project's own ruff is project code.
    expect(
      toolEnvironment("/srv/a/.venv/bin/ruff", "/srv/a/.venv/bin/ruff", read, SERVER).env.MCQ_SWITCH,
    ).toBe("1");
  });

  it("a tool's declared credentials reach it, and only it", () => {
    expect(toolEnvironment("/usr/bin/npm", "/usr/bin/npm", read, SERVER).env).toMatchObject({
      NPM_TOKEN: "s5",
      npm_config__authToken: "s8",
    });
    const cargo = toolEnvironment("/c/bin/cargo", "/c/bin/cargo", read, SERVER);
    expect(cargo.env.CARGO_REGISTRY_TOKEN).toBeUndefined();
    expect(cargo.env.CARGO_TARGET_DIR).toBe("/t");
    expect(
      toolEnvironment("/c/bin/cargo", "/c/bin/cargo", read, SERVER, ["CARGO_REGISTRY_TOKEN"]).env,
    ).toMatchObject({ CARGO_REGISTRY_TOKEN: "s6" });
  });

  it("the advice provider keeps its own keys, never the server's", () => {
    const env = toolEnvironment(
      "/opt/bin/claude",
      "/opt/bin/claude",
      { kind: "provider", roots: [] },
      SERVER,
    ).env;
    expect(env.OPENAI_API_KEY).toBe("s7");
    expect(env.MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN).toBeUndefined();
    expect(env.TURBO_REMOTE_CACHE_SIGNATURE_KEY).toBeUndefined();
  });
});

describe("isCredentialName", () => {
  it("reads the name's segments", () => {
    for (const n of [
      "GITHUB_TOKEN",
      "DATABASE_PASSWORD",
      "ANTHROPIC_API_KEY",
      "npm_config__authToken",
      "GH_ENTERPRISE",
      "SSH_AUTH_SOCK",
      // What a red team's tool still read: joined words, the databases' own names, git's settings.
      "PGPASSWORD",
      "MYSQL_PWD",
      "ZZ_SECRETKEY",
      "ZZ_ACCESSTOKEN",
      "GIT_CONFIG_PARAMETERS",
      "GIT_CONFIG_VALUE_0",
      "GIT_ASKPASS",
      // And a later one's: PASS as a word, a number after the word, cookies, bearers, creds.
      "DB_PASS",
      "SMTP_PASS",
      "TOKEN2",
      "GITHUB_TOKEN2",
      "ZZ_APITOKEN2",
      "SESSION_COOKIE",
      "BEARER",
      "CREDS",
      "GCP_CREDS",
      "AUTH0_CLIENT",
      "AZ_CLIENT_SECRET",
    ])
      expect(isCredentialName(n), n).toBe(true);
    for (const n of [
      "GIT_AUTHOR_NAME",
      "TOKENIZERS_PARALLELISM",
      "NODE_PATH",
      "PYTHONHASHSEED",
      "KEYBOARD",
      "PWD",
      "OLDPWD",
      "PASSENGER_APP_ENV",
      "BYPASS_CACHE",
      "PYTHON3_HOME",
      "XDG_SESSION_TYPE",
    ])
      expect(isCredentialName(n), n).toBe(false);
  });
});
