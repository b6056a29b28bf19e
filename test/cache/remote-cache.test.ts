/**
 * The shared result cache over the Turborepo remote cache API, against a real turborepo-remote-cache server:
 * one machine's results serve another checkout (another path, an empty local cache); entries another client
 * tampered with, or another team's, are never used; a remote that is down or never answers fails no call.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { startRemoteCache, type RemoteCacheServer } from "../helpers/remote-cache.js";
import { copyFixture, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PATH = `${TOOLS_VENV_BIN}:${process.env.PATH}`;
const FIXTURE = path.join(FIXTURES, "python", "lint-project");

/** A result without timings and the cache marker, its checkout's path written as <dir>. */
function comparable(result: Record<string, unknown>, dir: string): string {
  return JSON.stringify(result, (key, value: unknown) =>
    key === "duration_ms" || key === "cached" ? undefined : value,
  ).replaceAll(dir, "<dir>");
}

/** A server (own local cache folder) on `dir`, with the remote given by `remote` flags. */
function server(dir: string, remote: string[]): Promise<Connected> {
  return connectStdio({
    args: ["--allowed-paths", dir, "--rate-limit", "false", "--result-cache", "true", ...remote],
    env: { PATH, XDG_CACHE_HOME: tempDir("mcq-xdg-") },
  });
}

async function lintOnce(remote: string[]) {
  const dir = copyFixture(FIXTURE);
  const s = await server(dir, remote);
  try {
    const result = await s.call("lint", { path: dir, linter: "ruff" });
    return { result, text: comparable(result, dir) };
  } finally {
    await s.close(); // the server sends its writes before it exits
  }
}

function artifacts(storage: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(path.join(d, e.name));
      else out.push(path.join(d, e.name));
  };
  walk(storage);
  return out;
}

describe.skipIf(missing("ruff", [TOOLS_VENV_BIN]))("remote result cache (turborepo-remote-cache)", () => {
  let remote: RemoteCacheServer;
  let flags: (team: string, secret: string) => string[];
  let expected: string;

  beforeAll(async () => {
    remote = await startRemoteCache();
    flags = (team, secret) => [
      "--remote-cache-url",
      remote.url,
      "--remote-cache-token",
      remote.token,
      "--remote-cache-team",
      team,
      "--remote-cache-secret",
      secret,
    ];
    const plain = copyFixture(FIXTURE);
    const s = await connectStdio({
      args: ["--allowed-paths", plain, "--rate-limit", "false", "--result-cache", "false"],
      env: { PATH },
    });
    expected = comparable(await s.call("lint", { path: plain, linter: "ruff" }), plain);
    await s.close();
  });

  afterAll(async () => {
    await remote?.stop();
  });

  it("a result written by one checkout serves another, with an empty local cache", async () => {
    const first = await lintOnce(flags("team-a", "secret-a"));
    expect(first.result.cached).toBe("0 of 5 files");
    expect(artifacts(remote.storage).length).toBeGreaterThan(0);
    const other = await lintOnce(flags("team-a", "secret-a"));
    expect(other.result.cached).toBe("5 of 5 files");
    // The same result, with the other checkout's own paths.
    expect(other.text).toBe(expected);
  });

  it("another team, or the same team with another secret, does not read the entries", async () => {
    expect((await lintOnce(flags("team-b", "secret-a"))).result.cached).toBe("0 of 5 files");
    expect((await lintOnce(flags("team-a", "other"))).result.cached).toBe("0 of 5 files");
  });

  it("an entry changed on the server fails its signature and is not used", async () => {
    for (const f of artifacts(path.join(remote.storage, "team-a"))) {
      const body = fs.readFileSync(f);
      body.writeUInt8(body.readUInt8(body.length - 1) ^ 0xff, body.length - 1);
      fs.writeFileSync(f, body);
    }
    const after = await lintOnce(flags("team-a", "secret-a"));
    expect(after.result.cached).toBe("0 of 5 files");
    expect(after.text).toBe(expected);
  });

  it("a remote that refuses connections or never answers fails no call", async () => {
    const silent = net.createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as net.AddressInfo).port;
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    try {
      for (const url of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${closedPort}`]) {
        const dir = copyFixture(FIXTURE);
        const s = await server(dir, [
          ...flags("team-a", "secret-a").map((v) => (v === remote.url ? url : v)),
          "--remote-cache-timeout-ms",
          "200",
        ]);
        const r = await s.call("lint", { path: dir, linter: "ruff" });
        const again = await s.call("lint", { path: dir, linter: "ruff" });
        await s.close();
        expect(r.success).toBe(true);
        expect(r.cached).toBe("0 of 5 files");
        expect(again.cached).toBe("5 of 5 files"); // the local cache still works
        expect(comparable(r, dir)).toBe(expected);
      }
    } finally {
      silent.close();
    }
  });

  it("a remote URL without its token, team and secret is a start-up error", () => {
    const run = spawnSync(process.execPath, [CLI, "--mode", "stdio", "--remote-cache-url", remote.url], {
      encoding: "utf8",
      env: { ...process.env, MCP_CODE_QUALITY_REMOTE_CACHE_TOKEN: "", TURBO_TOKEN: "" },
      input: "",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--remote-cache-url needs --remote-cache-token as well");
  });
});
