/** Shared by the race tests: the attacker process, the server's pid, and a Python project beside an outside folder. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Connected } from "../../helpers/server.js";

const ATTACKER = path.join(path.dirname(fileURLToPath(import.meta.url)), "attacker.mjs");

/** Starts test/security/helpers/attacker.mjs; resolves with the JSON line it prints when done. */
export function attacker(args: string[]): Promise<Record<string, unknown>> {
  return startAttacker(args).done;
}

/**
 * The attacker, and when it says it is ready (a mode that prints `ready` on stderr once it has looked at
 * its files: kill-on-change), so a test starts the server's work only then, whatever the machine's load.
 */
export function startAttacker(args: string[]): {
  ready: Promise<void>;
  done: Promise<Record<string, unknown>>;
} {
  const child = spawn(process.execPath, [ATTACKER, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString();
    if (/^ready$/m.test(err)) onReady();
  });
  const done = new Promise<Record<string, unknown>>((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Record<string, unknown>)
        : reject(new Error(`attacker: ${err}`)),
    ),
  );
  // An attacker that ends before it is ready settles `ready` too (its end says why).
  void done.then(onReady, onReady);
  return { ready, done };
}

/** The pid of a stdio server process. */
export function serverPid(s: Connected): number {
  const pid = (s.client.transport as StdioClientTransport | undefined)?.pid;
  if (!pid) throw new Error("no server pid");
  return pid;
}

/** Every file under dir (relative path → bytes), following nothing. */
export function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile()) out.set(path.relative(dir, abs), fs.readFileSync(abs));
      else out.set(path.relative(dir, abs), Buffer.from(`link -> ${fs.readlinkSync(abs)}`));
    }
  };
  walk(dir);
  return out;
}

export const modeOf = (file: string) => fs.statSync(file).mode & 0o7777;

/** Compact Python that ruff format takes long over (the embedded ruff runs on the event loop). */
export function slowToFormat(megabytes: number): string {
  const line = "x=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30]\n";
  return line.repeat(Math.ceil((megabytes * 1e6) / line.length));
}

/** A small module with an unused import (ruff's F401, a fix) that is also unformatted. */
export const SMALL = "import os\nimport sys\n\n\nprint( sys.argv )\n";

/** Resolves once a journal (a transaction in its writing phase) exists under `cacheDir`. */
export async function journalAppears(cacheDir: string, ms = 120_000): Promise<void> {
  const dir = path.join(cacheDir, "journal");
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((fs.existsSync(dir) ? fs.readdirSync(dir) : []).some((n) => n.endsWith(".json"))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no journal under ${cacheDir}`);
}

/** Audit lines of a project cache, read directly. */
export function auditLines(cacheDir: string): Record<string, unknown>[] {
  const file = path.join(cacheDir, "audit.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
