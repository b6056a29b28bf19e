/**
 * Issue 10.16: external link checks requested loopback URLs and followed redirects to them, which
 * also revealed open local ports. Loopback, link-local and private addresses are now refused unless the
 * server runs with --allow-private-links: IP literals in any spelling, host names that resolve there
 * (checked on the address connected to), and redirects into them. Only 127.0.0.x is ever contacted.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrivateAddress } from "../../src/adapters/markdown/address-policy.js";
import { ExternalLinkChecker } from "../../src/adapters/markdown/http-check.js";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** A server on `host` recording every request; `/to?u` redirects to u. */
async function recorder(host: string) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    const to = /^\/to\?(.+)$/.exec(req.url ?? "");
    if (to) res.writeHead(302, { location: decodeURIComponent(to[1] as string) });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    hits,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("external link checks refuse private addresses", () => {
  let web: Awaited<ReturnType<typeof recorder>>;
  let dir: string;
  let urls: string[];

  beforeAll(async () => {
    web = await recorder("127.0.0.1");
    const p = web.port;
    urls = [
      `http://127.0.0.1:${p}/literal`,
      `http://localhost:${p}/name`,
      `http://2130706433:${p}/decimal`,
      `http://0x7f.0.0.1:${p}/hex`,
      `http://[::ffff:127.0.0.1]:${p}/mapped`,
      `http://0.0.0.0:${p}/any`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.1.2.3/",
      "http://192.168.0.1/",
      "http://[fe80::1]/",
    ];
    dir = tempDir("mcq-private-");
    fs.writeFileSync(path.join(dir, "links.md"), urls.map((u) => `- <${u}>`).join("\n") + "\n");
  });
  afterAll(async () => {
    await web?.close();
  });

  it("refuses every private or loopback target without contacting it", async () => {
    const s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
    try {
      const r = await s.call("check_markdown_links", { path: ".", timeout: 5 });
      expect(r).toMatchObject({ success: true, passed: false, broken_links: urls.length });
      const broken = r.broken as { url: string; error: string }[];
      expect(broken.map((b) => b.url)).toEqual(urls);
      for (const b of broken)
        expect(b.error).toMatch(
          /^refused: .*loopback, link-local or private address .*--allow-private-links/,
        );
      expect(broken[1]?.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), which is/);
      expect(web.hits).toEqual([]);
    } finally {
      await s.close();
    }
  }, 30_000);

  it("with --allow-private-links true the same links are requested", async () => {
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--allow-private-links", "true"],
      cwd: dir,
    });
    try {
      const r = await s.call("check_markdown_links", {
        path: "links.md",
        timeout: 2,
        ignore_patterns: ["169\\.254|10\\.1|192\\.168|fe80"],
      });
      expect(r.success).toBe(true);
      expect(web.hits).toEqual(expect.arrayContaining(["/literal", "/name", "/decimal", "/hex"]));
    } finally {
      await s.close();
    }
  }, 30_000);

  it("classifies the ranges", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd12::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "[::1]",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700::1111", "example.com"])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});

describe("redirects into a refused address", () => {
  it("are not followed (checked on the connected address of every hop)", async () => {
    // 127.0.0.1 stands in for a public host; 127.0.0.2 for the private one it redirects to.
    const front = await recorder("127.0.0.1");
    const inside = await recorder("127.0.0.2");
    const checker = new ExternalLinkChecker({
      timeoutMs: 5000,
      concurrent: 2,
      refuseAddress: (address) => address !== "127.0.0.1",
    });
    try {
      const target = `http://127.0.0.2:${inside.port}/secret`;
      const outcome = await checker.check(`http://127.0.0.1:${front.port}/to?${encodeURIComponent(target)}`);
      expect(outcome).toEqual({
        ok: false,
        error: expect.stringMatching(/^refused: 127\.0\.0\.2 is a loopback/),
      });
      expect(front.hits).toHaveLength(1);
      expect(inside.hits).toEqual([]);
    } finally {
      await checker.close();
      await front.close();
      await inside.close();
    }
  });
});
