/**
 * External links of check_markdown_links against real HTTP(S) servers this test starts on 127.0.0.1
 * (no other address is ever contacted): statuses, HEAD refused, redirect chains and loops, a slow
 * endpoint past the timeout, 429 with Retry-After, refused connections, TLS failures, de-duplication
 * and per-host politeness.
 */
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** The test's servers are on 127.0.0.1, which link checks refuse unless allowed. */
const PRIVATE = ["--allow-private-links", "true"];

interface Hit {
  method: string;
  path: string;
}

/** The test's web server: what each path does, and a record of every request. */
function startWebServer() {
  const hits: Hit[] = [];
  const state = { inFlight: 0, maxInFlight: 0, busyServed: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const p = url.pathname;
    hits.push({ method: req.method ?? "", path: p });
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on("close", () => state.inFlight--);
    const send = (status: number, headers: Record<string, string> = {}) => {
      res.writeHead(status, headers);
      res.end(req.method === "HEAD" ? undefined : `status ${status}\n`);
    };
    const redirect = /^\/redirect\/(\d+)$/.exec(p);
    if (p === "/ok") return send(200);
    if (p === "/missing") return send(404);
    if (p === "/error") return send(500);
    if (p === "/no-head") return req.method === "HEAD" ? send(405) : send(200);
    if (p === "/no-head-gone") return req.method === "HEAD" ? send(405) : send(404);
    if (redirect) {
      const n = Number(redirect[1]);
      return n === 0 ? send(200) : send(302, { location: `/redirect/${n - 1}` });
    }
    if (p === "/loop/a") return send(301, { location: "/loop/b" });
    if (p === "/loop/b") return send(307, { location: "http://127.0.0.1:" + port() + "/loop/a" });
    if (p === "/slow") return later(30_000, () => send(200));
    if (p === "/busy") return state.busyServed++ === 0 ? send(429, { "retry-after": "1" }) : send(200);
    if (p === "/busy-long") return send(429, { "retry-after": "3600" });
    if (p.startsWith("/hold/")) return later(150, () => send(200));
    send(404);
  });
  const port = () => (server.address() as AddressInfo).port;
  return {
    hits,
    state,
    port,
    listen: () => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe("check_markdown_links: external links", () => {
  const web = startWebServer();
  let tls: https.Server;
  let dir: string;
  let server: Connected;
  let base: string;
  let refused: string;
  let secure: string;

  beforeAll(async () => {
    await web.listen();
    const tlsDir = path.join(FIXTURES, "markdown", "tls");
    tls = https.createServer(
      {
        key: fs.readFileSync(path.join(tlsDir, "key.pem")),
        cert: fs.readFileSync(path.join(tlsDir, "cert.pem")),
      },
      (_req, res) => res.end("ok"),
    );
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${web.port()}`;
    refused = `http://127.0.0.1:${await closedPort()}/`;
    secure = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
    dir = tempDir("mcq-mdext-");
    fs.writeFileSync(
      path.join(dir, "a.md"),
      [
        "# External",
        "",
        `- [ok](${base}/ok)`,
        `- [missing](${base}/missing)`,
        `- [no head](${base}/no-head)`,
        `- [gone](${base}/no-head-gone)`,
        `- [chain](${base}/redirect/3)`,
        `- [long chain](${base}/redirect/12)`,
        `- [loop](${base}/loop/a)`,
        `- [slow](${base}/slow)`,
        `- [busy](${base}/busy)`,
        `- [busy for long](${base}/busy-long)`,
        `- [error](${base}/error)`,
        `- [refused](${refused})`,
        `- [tls](${secure})`,
        "- <mailto:someone@example.com>",
        `- [ok again](${base}/ok#part)`,
        "",
      ].join("\n"),
    );
    const holds = Array.from({ length: 6 }, (_, i) => `- [hold ${i}](${base}/hold/${i})`);
    fs.writeFileSync(path.join(dir, "b.md"), ["# More", "", `<${base}/ok>`, ...holds, ""].join("\n"));
    server = await connectStdio({ args: ["--allowed-paths", dir, ...PRIVATE], cwd: dir });
  });

  afterAll(async () => {
    await server?.close();
    await web.close();
    tls?.closeAllConnections();
    await new Promise<void>((resolve) => (tls ? tls.close(() => resolve()) : resolve()));
  });

  it("check_external: false makes no request at all", async () => {
    const r = await server.call("check_markdown_links", { path: ".", check_external: false });
    expect(r).toMatchObject({
      success: true,
      passed: true,
      files_checked: 2,
      total_links: 22,
      skipped_links: 22,
    });
    expect(web.hits).toEqual([]);
  });

  it("reports each failure with its reason, checking each URL once and politely", async () => {
    const r = await server.call("check_markdown_links", { path: ".", timeout: 3, concurrent: 10 });
    const at = (line: number, url: string, error: unknown) => ({
      file: "a.md",
      line,
      lines: [line],
      column: 3,
      url,
      error,
    });
    expect(r).toMatchObject({
      success: true,
      passed: false,
      files_checked: 2,
      total_links: 22,
      skipped_links: 1,
    });
    expect(r.broken).toEqual([
      at(4, `${base}/missing`, "HTTP 404 Not Found"),
      at(6, `${base}/no-head-gone`, "HTTP 404 Not Found"),
      at(8, `${base}/redirect/12`, "too many redirects (more than 10)"),
      at(9, `${base}/loop/a`, `redirect loop (${base}/loop/a reached again)`),
      at(10, `${base}/slow`, "timeout after 3 s"),
      at(12, `${base}/busy-long`, "HTTP 429 Too Many Requests (Retry-After 3600 s exceeds the 3 s timeout)"),
      at(13, `${base}/error`, "HTTP 500 Internal Server Error"),
      at(14, refused, `connection refused by ${new URL(refused).host}`),
      // OpenSSL 1.1 spells it "self signed", OpenSSL 3 "self-signed".
      at(
        15,
        secure,
        expect.stringMatching(/^TLS error: self[- ]signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/),
      ),
    ]);
    const count = (p: string, method?: string) =>
      web.hits.filter((h) => h.path === p && (!method || h.method === method)).length;
    // /ok appears three times (once with a fragment) in two files: one HEAD in all.
    expect(count("/ok")).toBe(1);
    // 405 on HEAD, then GET.
    expect(web.hits.filter((h) => h.path === "/no-head").map((h) => h.method)).toEqual(["HEAD", "GET"]);
    // 429 with Retry-After: 1, then success on the retry.
    expect(count("/busy")).toBe(2);
    expect(count("/redirect/0")).toBe(1);
    // Never more than two requests at once to one host, although `concurrent` allows ten.
    expect(web.state.maxInFlight).toBeLessThanOrEqual(2);
    expect(web.state.maxInFlight).toBeGreaterThan(0);
    expect(r.external_urls_checked).toBe(19);
  });

  it("does not count time queued for a request slot against a link's timeout", async () => {
    // Eight hosts (ports), each answering after 300 ms; one request at a time in all, 1 s per link:
    // the last link waits about 2 s in the queue and must still pass.
    const hosts = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const h = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 300));
        await new Promise<void>((resolve) => h.listen(0, "127.0.0.1", resolve));
        return h;
      }),
    );
    const queueDir = tempDir("mcq-mdqueue-");
    const lines = hosts.map(
      (h, i) => `- [host ${i}](http://127.0.0.1:${(h.address() as AddressInfo).port}/)`,
    );
    fs.writeFileSync(path.join(queueDir, "queue.md"), lines.join("\n") + "\n");
    const s = await connectStdio({ args: ["--allowed-paths", queueDir, ...PRIVATE], cwd: queueDir });
    try {
      const r = await s.call("check_markdown_links", { path: ".", concurrent: 1, timeout: 1 });
      expect(r).toMatchObject({ success: true, passed: true, total_links: 8, external_urls_checked: 8 });
    } finally {
      await s.close();
      for (const h of hosts) {
        h.closeAllConnections();
        await new Promise<void>((resolve) => h.close(() => resolve()));
      }
    }
  });

  it("stops at the server's --timeout with a timeout error, and keeps serving", async () => {
    const slowDir = tempDir("mcq-mdslow-");
    fs.writeFileSync(path.join(slowDir, "slow.md"), `[slow](${base}/slow?again)\n[ok](${base}/ok?again)\n`);
    const limited = await connectStdio({
      args: ["--allowed-paths", slowDir, "--timeout", "1", ...PRIVATE],
      cwd: slowDir,
    });
    try {
      const r = await limited.call("check_markdown_links", { path: ".", timeout: 60 });
      expect(r).toMatchObject({
        success: false,
        error_type: "timeout",
        error: "check_markdown_links exceeded the 1 s timeout",
      });
      const again = await limited.call("check_markdown_links", { path: ".", check_external: false });
      expect(again).toMatchObject({ success: true, passed: true, total_links: 2 });
    } finally {
      await limited.close();
    }
  });
});
