/** A credential in a variable's value (sandbox/credential-value.ts), and what the tool environments do with it. */
import { describe, expect, it } from "vitest";
import { hasUrlCredential } from "../../src/exec/sandbox/credential-value.js";
import { toolEnvironment } from "../../src/exec/sandbox/env.js";

describe("hasUrlCredential", () => {
  it("finds a URL's password and a token in the user's place", () => {
    for (const v of [
      "postgres://app:s3cret@db.internal:5432/app",
      "mysql://root:hunter22@10.0.0.5/x",
      "redis://:onlypassword@cache.internal:6379/0",
      "https://x-access-token:ghs_0123456789abcdef@github.com/o/r.git",
      "https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com/o/r",
      "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42",
      "amqp://guest:guest@rabbit.prod:5672",
      // In a list, after another URL, after text.
      "https://a.internal,https://u:p4ss@b.internal",
      "--registry=https://u:tok123@npm.internal/",
      "postgres://app:s3cret@[2001:db8::1]:5432/app",
    ])
      expect(hasUrlCredential(v), v).toBe(true);
  });

  it("keeps logins, local development defaults, example hosts and values without a URL's user", () => {
    for (const v of [
      "postgres://postgres:postgres@localhost/test",
      "postgres://ci:ci@127.0.0.1:5432/test",
      "postgres://u:p@[::1]/t",
      "https://user:pass@example.com/x",
      "https://user:pass@db.test/x",
      "ssh://git@github.com/o/r.git",
      "git+ssh://deploy@host.internal/r",
      "https://github.com/o/r",
      "http://proxy:3128",
      "user@host.internal",
      "mailto:someone@example.org",
      // An empty password is no secret; an `@` in the path is not the authority's.
      "https://user:@host.internal/",
      "https://host.internal/@scope/pkg",
      "",
      "://",
      "x".repeat(100_000),
    ])
      expect(hasUrlCredential(v), v.slice(0, 60)).toBe(false);
  });
});

describe("a tool's environment and values that hold credentials", () => {
  const server = {
    PATH: "/usr/bin",
    HOME: "/h",
    NODE_ENV: "test",
    DATABASE_URL: "postgres://app:s3cret@db.internal/app",
    LOCAL_DB: "postgres://postgres:postgres@localhost/test",
    PYTHONPATH: "https://u:p4ss@evil.internal/",
    HTTPS_PROXY: "http://me:proxy-pass@proxy.corp:3128",
    GOPROXY: "https://me:tok123@goproxy.corp",
  };
  const read = { kind: "read" as const, roots: ["/srv/a"] };

  it("a tool that runs project code gets neither the URL's password nor a proxy's when it has no network", () => {
    const env = toolEnvironment("/usr/bin/node", "/usr/bin/node", read, server).env;
    expect(env.NODE_ENV).toBe("test");
    expect(env.LOCAL_DB).toBe(server.LOCAL_DB);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.HTTPS_PROXY).toBeUndefined();
  });

  it("a tool of the allowlist loses a family variable that holds one; a networked tool keeps its proxy", () => {
    expect(toolEnvironment("/usr/bin/ruff", "/usr/bin/ruff", read, server).env.PYTHONPATH).toBeUndefined();
    const go = toolEnvironment("/usr/local/go/bin/go", "/usr/local/go/bin/go", read, server).env;
    expect(go.HTTPS_PROXY).toBe(server.HTTPS_PROXY);
    expect(go.GOPROXY).toBeUndefined();
    // Declared, it reaches the step that needs it.
    expect(
      toolEnvironment("/usr/local/go/bin/go", "/usr/local/go/bin/go", read, server, ["GOPROXY"]).env.GOPROXY,
    ).toBe(server.GOPROXY);
  });
});
