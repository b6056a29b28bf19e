/**
 * The V8 code cache of the tsc worker (issue 38): V8 checks little more than a source's length before it runs
 * cached code, and the cache folder was writable by every node worker. A project's `eslint.config.js` wrote a
 * forged cache for the bundled typescript.js, and its code ran in a later tsc worker of another project. Now
 * the folder is read-only to every tool and the server's producer alone writes it, under the source's hash.
 * The config here tries both names a cache file has had, and every file already there.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

const TYPESCRIPT = createRequire(import.meta.url).resolve("typescript");

/** An ESLint config that forges cached data for `bundle` (code that throws FORGED-V8-CACHE-RAN), then fails. */
function forgingConfig(bundle: string): string {
  return [
    'import crypto from "node:crypto";',
    'import fs from "node:fs";',
    'import os from "node:os";',
    'import path from "node:path";',
    'import vm from "node:vm";',
    `const file = ${JSON.stringify(bundle)};`,
    'const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");',
    'const dir = path.join(base, "mcp-code-quality", "v8-code-cache");',
    'const source = fs.readFileSync(file, "utf8");',
    'const open = "(function (exports, require, module, __filename, __dirname) {";',
    'const wrapped = open + source + "\\n})";',
    'const head = open + "throw new Error(\\"FORGED-V8-CACHE-RAN\\");";',
    'const fake = head + " ".repeat(wrapped.length - head.length - 3) + "\\n})";',
    "const data = new vm.Script(fake, { filename: file }).createCachedData();",
    "const st = fs.statSync(file);",
    'const key = (h) => h.digest("hex");',
    'const before = key(crypto.createHash("sha256").update([file, st.size, st.mtimeMs, process.version, process.arch].join("\\0"))).slice(0, 24);',
    'const now = key(crypto.createHash("sha256").update([process.version, process.arch, process.execArgv.join(" "), ""].join("\\0")).update(source)).slice(0, 40);',
    'const targets = new Set([before, now].map((k) => path.join(dir, k + ".bin")));',
    "try { for (const f of fs.readdirSync(dir)) targets.add(path.join(dir, f)); } catch {}",
    "const results = [];",
    "for (const t of targets) {",
    '  try { fs.writeFileSync(t, data); results.push("written " + path.basename(t)); }',
    '  catch (e) { results.push(e.code + " " + path.basename(t)); }',
    "}",
    'throw new Error("FORGE " + results.join(", "));',
    "",
  ].join("\n");
}

describe("the V8 code cache", () => {
  const root = tempDir("mcq-v8-");
  const at = (...p: string[]) => path.join(root, ...p);
  const xdg = tempDir("mcq-v8-xdg-");
  const cacheDir = path.join(xdg, "mcp-code-quality", "v8-code-cache");
  let s: Connected;

  const listing = () =>
    Object.fromEntries(
      (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []).map((f) => [
        f,
        createHash("sha256")
          .update(fs.readFileSync(path.join(cacheDir, f)))
          .digest("hex"),
      ]),
    );

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    // The attacker: an ESLint project.
    fs.mkdirSync(at("attacker", "src"), { recursive: true });
    fs.writeFileSync(at("attacker", "package.json"), '{ "name": "attacker", "type": "module" }\n');
    fs.writeFileSync(at("attacker", "src", "a.js"), "export const a = 1;\n");
    fs.writeFileSync(at("attacker", "eslint.config.js"), forgingConfig(TYPESCRIPT));
    // Another project, type-checked with the bundled TypeScript.
    fs.mkdirSync(at("victim", "src"), { recursive: true });
    fs.writeFileSync(
      at("victim", "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ["src"] }),
    );
    fs.writeFileSync(at("victim", "src", "b.ts"), 'export const n: number = "not a number";\n');
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
      env: { XDG_CACHE_HOME: xdg },
    });
  });
  afterAll(() => s?.close());

  it("a forged cache written by a project's config never runs in another project's tsc worker", async () => {
    const first = await s.call("type_check", { path: at("victim"), checker: "tsc" });
    expect(first.issues, JSON.stringify(first).slice(0, 1500)).toEqual([
      expect.stringMatching(/^src\/b\.ts:1:14: TS2322 /),
    ]);
    // The server's producer made the cache for the bundle (the worker could not write it).
    const made = listing();
    expect(Object.keys(made)).toHaveLength(1);

    const forged = await s.call("lint", { path: at("attacker"), linter: "eslint" });
    const text = JSON.stringify(forged);
    expect(text).toContain("FORGE ");
    expect(text).not.toContain("written ");
    expect(text).toContain("EROFS");
    expect(listing()).toEqual(made);

    // A fresh tsc worker (its config's mtime changed) loads the bundle with whatever cache is there.
    const config = at("victim", "tsconfig.json");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(config, later, later);
    const again = await s.call("type_check", { path: at("victim"), checker: "tsc" });
    expect(JSON.stringify(again)).not.toContain("FORGED-V8-CACHE-RAN");
    expect((again.notes as string[]).join("\n")).toContain("cold start");
    expect(again.issues).toEqual(first.issues);
  });
});
