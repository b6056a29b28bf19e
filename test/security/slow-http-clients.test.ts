/**
 * Slow HTTP clients used to hold the server: requestTimeout was 0, so 300 connections trickling a body
 * stayed open for 150 s, and with a low descriptor limit legitimate requests got no reply. Now a request
 * must arrive whole within --http-request-timeout (headers within 10 s at most), and at most
 * --max-connections are open at once. Bounded: a handful of connections on 127.0.0.1, seconds long.
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { startHttp } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

interface Slow {
  socket: net.Socket;
  /** Resolves with what the server sent once it closed the connection. */
  closed: Promise<string>;
  stop(): void;
}

/** A client that sends `head` and then one byte of `trickle` every 300 ms, forever. */
function slowClient(url: string, head: string, trickle: string): Slow {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = "";
  socket.on("data", (c) => (received += c.toString()));
  socket.on("error", () => {});
  socket.write(head);
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(trickle[i++ % trickle.length] as string);
  }, 300);
  const closed = new Promise<string>((resolve) =>
    socket.once("close", () => {
      clearInterval(timer);
      resolve(received);
    }),
  );
  return { socket, closed, stop: () => (clearInterval(timer), socket.destroy()) };
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | "still open"> =>
  Promise.race([p, new Promise<"still open">((r) => setTimeout(() => r("still open"), ms))]);

describe("slow HTTP clients", () => {
  it("a body trickled byte by byte is cut off at the request timeout (408)", async () => {
    const dir = tempDir("mcq-slowhttp-");
    const server = await startHttp({ args: ["--allowed-paths", dir, "--http-request-timeout", "2"] });
    const clients: Slow[] = [];
    try {
      const host = new URL(server.url).host;
      for (let i = 0; i < 5; i++)
        clients.push(
          slowClient(
            server.url,
            `POST /mcp/execute HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"tool":`,
            " ",
          ),
        );
      const outcomes = await Promise.all(clients.map((c) => within(c.closed, 10_000)));
      for (const o of outcomes) expect(o).toMatch(/^HTTP\/1\.1 408/);
      // The server still answers.
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      clients.forEach((c) => c.stop());
      await server.stop();
    }
  }, 40_000);

  it("headers trickled byte by byte are cut off too", async () => {
    const dir = tempDir("mcq-slowhttp-");
    const server = await startHttp({ args: ["--allowed-paths", dir, "--http-request-timeout", "2"] });
    const c = slowClient(
      server.url,
      "GET /health HTTP/1.1\r\n",
      "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    );
    try {
      expect(await within(c.closed, 10_000)).not.toBe("still open");
    } finally {
      c.stop();
      await server.stop();
    }
  }, 40_000);

  it("connections past --max-connections are dropped, and served again once slow ones are gone", async () => {
    const dir = tempDir("mcq-slowhttp-");
    const server = await startHttp({
      args: ["--allowed-paths", dir, "--http-request-timeout", "3", "--max-connections", "4"],
    });
    const host = new URL(server.url).host;
    const head = `POST /mcp/execute HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100000\r\n\r\n`;
    const slow = Array.from({ length: 4 }, () => slowClient(server.url, head, " "));
    try {
      await Promise.all(slow.map((c) => new Promise((r) => c.socket.once("connect", r))));
      await new Promise((r) => setTimeout(r, 300));
      // A fifth connection is closed without an answer while four are held.
      const extra = slowClient(server.url, `GET /health HTTP/1.1\r\nHost: ${host}\r\n\r\n`, "");
      expect(await within(extra.closed, 2000)).toBe("");
      // Once the slow ones are cut off at their timeout, requests are answered again.
      await Promise.all(slow.map((c) => within(c.closed, 10_000)));
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      slow.forEach((c) => c.stop());
      await server.stop();
    }
  }, 40_000);
});
