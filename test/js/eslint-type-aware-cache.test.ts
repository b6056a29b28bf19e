/**
 * ESLint with a type-aware config (typescript-eslint's projectService: `no-floating-promises` in b.ts depends
 * on the type a.ts gives `f`) through the result cache: one whole-program entry, a hit while no file changed,
 * and after an edit of a.ts alone the verdict on b.ts follows it, as a server without the cache says. A
 * tsconfig that reaches outside the project is not cached, and the result says why. The real ESLint and
 * typescript-eslint (this repository's, as the project's node_modules), through the real server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readsOutside } from "../../src/adapters/js/eslint-typed-cached.js";
import { TreeScanner } from "../../src/paths/tree-scan.js";
import { connectStdio, REPO_ROOT, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

type Json = Record<string, unknown>;

const CONFIG = `import tseslint from "typescript-eslint";

export default tseslint.config({
  files: ["src/**/*.ts"],
  extends: [...tseslint.configs.recommendedTypeChecked],
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
});
`;
const ASYNC_F = "export async function f(): Promise<number> {\n  return await Promise.resolve(1);\n}\n";
const SYNC_F = "export function f(): number {\n  return 1;\n}\n";

/** A result without what differs between two servers or calls: timings, cache markers, worker notes. */
const comparable = (r: Json) =>
  JSON.stringify(r, (key, value: unknown) =>
    key === "duration_ms" || key === "durationMs" || key === "cached" || key === "uncached"
      ? undefined
      : key === "notes" && Array.isArray(value)
        ? value.filter((n) => typeof n !== "string" || !/worker|pid \d+/.test(n))
        : value,
  );

describe("what a type-aware lint reads outside the project", () => {
  it("a workspace package linked into node_modules, or a tsconfig reaching up; not pnpm's own store", () => {
    const root = tempDir("mcq-typed-outside-");
    const project = path.join(root, "app");
    const nm = path.join(project, "node_modules");
    fs.mkdirSync(path.join(nm, ".pnpm", "dep@1.0.0", "node_modules", "dep"), { recursive: true });
    fs.mkdirSync(path.join(root, "packages", "lib"), { recursive: true });
    // pnpm: a direct dependency is a link into its own store.
    fs.symlinkSync(path.join(nm, ".pnpm", "dep@1.0.0", "node_modules", "dep"), path.join(nm, "dep"));
    const tsconfig = path.join(project, "tsconfig.json");
    fs.writeFileSync(tsconfig, '{ "include": ["src"] }\n');
    expect(readsOutside(new TreeScanner(), project, root, [tsconfig])).toBeUndefined();
    fs.mkdirSync(path.join(nm, "@ws"));
    fs.symlinkSync(path.join(root, "packages", "lib"), path.join(nm, "@ws", "lib"));
    expect(readsOutside(new TreeScanner(), project, root, [tsconfig])).toBe(
      "node_modules/@ws/lib is a link (a workspace package): a type-aware lint reads its sources, outside the project, so it is not cached",
    );
    fs.rmSync(path.join(nm, "@ws"), { recursive: true });
    fs.writeFileSync(tsconfig, '{ "references": [{ "path": "../lib" }] }\n');
    expect(readsOutside(new TreeScanner(), project, root, [tsconfig])).toMatch(
      /^tsconfig.json reaches outside/,
    );
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("a type-aware ESLint config through the result cache", () => {
  let dir: string;
  let cached: Connected;
  let fresh: Connected;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  const lint = (s: Connected) => s.call("lint", { path: ".", linter: "eslint" });

  beforeAll(async () => {
    dir = tempDir("mcq-eslint-typed-");
    write("package.json", '{ "name": "typed", "private": true, "type": "module" }\n');
    write("tsconfig.json", '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n');
    write("eslint.config.mjs", CONFIG);
    write("src/a.ts", ASYNC_F);
    write("src/b.ts", 'import { f } from "./a.js";\n\nexport function g(): void {\n  f();\n}\n');
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
    const args = ["--allowed-paths", dir, "--rate-limit", "false"];
    const env = { XDG_CACHE_HOME: tempDir("mcq-eslint-typed-xdg-") };
    [cached, fresh] = await Promise.all([
      connectStdio({ args: [...args, "--result-cache", "true"], cwd: dir, env }),
      connectStdio({ args: [...args, "--result-cache", "false"], cwd: dir, env }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([cached?.close(), fresh?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is one entry for the project, a hit while nothing changed, and follows an edit of another file", async () => {
    const first = await lint(cached);
    expect(first.success, JSON.stringify(first)).toBe(true);
    expect(first.issues).toEqual([
      "src/b.ts:4:3: @typescript-eslint/no-floating-promises Promises must be awaited, end with a call to .catch, end with a call to .then with a rejection handler or be explicitly marked as ignored with the `void` operator.",
    ]);
    // package.json, tsconfig.json, eslint.config.mjs, a.ts, b.ts.
    expect(first.cached).toBe("0 of 5 files");
    const hit = await lint(cached);
    expect(hit.cached).toBe("5 of 5 files");
    const direct = await lint(fresh);
    expect(direct.cached).toBeUndefined();
    expect(comparable(hit)).toBe(comparable(direct));

    // b.ts is as it was; its finding goes with a.ts's type.
    write("src/a.ts", SYNC_F);
    const afterDirect = await lint(fresh);
    expect(afterDirect.issues).toEqual([]);
    const after = await lint(cached);
    expect(after.cached).toBe("0 of 5 files");
    expect(after.issues).toEqual([]);
    expect(comparable(after)).toBe(comparable(afterDirect));
    write("src/a.ts", ASYNC_F);
    expect((await lint(cached)).issues).toEqual(first.issues);
  }, 180_000);

  it("a tsconfig reaching outside the project is not cached, and says why", async () => {
    write("tsconfig.json", '{ "extends": "../base.json", "include": ["src"] }\n');
    write("../base.json", '{ "compilerOptions": { "strict": true, "noEmit": true } }\n');
    try {
      const r = await lint(cached);
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(r.uncached).toBe(
        "tsconfig.json reaches outside the project (`../` or references): a type-aware lint is not cached",
      );
      expect(comparable(r)).toBe(comparable(await lint(fresh)));
    } finally {
      write(
        "tsconfig.json",
        '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
      );
      fs.rmSync(path.join(dir, "..", "base.json"), { force: true });
    }
  }, 180_000);
});
