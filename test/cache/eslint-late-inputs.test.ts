/**
 * What an ESLint config's code loads and reads is in the result cache's key, wherever and whenever it is
 * loaded or read:
 * - a plugin in node_modules: the config imports `eslint-plugin-local`, whose rule bans one identifier;
 *   editing the plugin's rule code (an upgrade in place) kept the cached verdict, and the warm worker kept
 *   the old rule in memory (only modules outside node_modules were keyed and watched);
 * - a read during linting: a rule of the project's own that reads `./words.txt` on first use reads it after
 *   the config's inputs were asked for (they are asked before the run), so its verdict was stored without it.
 * Each case: lint twice (the second from the cache), change the input, and the verdict must be ESLint's own
 * by hand (the server's bundled ESLint, run on the same files).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const ESLINT_BIN = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");

/** A rule (CommonJS, as plugins ship) that bans the identifier `name` wherever it is read from. */
const ruleCode = (nameExpr: string) => `"use strict";
module.exports = {
  meta: { name: "eslint-plugin-local", version: "1.0.0" },
  rules: {
    banned: {
      meta: { type: "problem", schema: [] },
      create(context) {
        const banned = ${nameExpr};
        return {
          Identifier(node) {
            if (node.name === banned) context.report({ node, message: "banned: " + banned });
          },
        };
      },
    },
  },
};
`;

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

/** ESLint by hand in `dir`: each finding as `file:line message`, sorted. */
function byHand(dir: string): string[] {
  const r = spawnSync(ESLINT_BIN, ["--format", "json", "."], { cwd: dir, encoding: "utf8" });
  const reports = JSON.parse(r.stdout) as {
    filePath: string;
    messages: { line: number; message: string }[];
  }[];
  return reports
    .flatMap((f) => f.messages.map((m) => `${path.relative(dir, f.filePath)}:${m.line} ${m.message}`))
    .sort();
}

/** The server's lint, the same way. */
function found(r: Record<string, unknown>, dir: string): string[] {
  const files = (r.files ?? []) as { file: string; messages: { line: number; message: string }[] }[];
  return files
    .flatMap((f) =>
      f.messages.map((m) => `${path.relative(dir, path.resolve(dir, f.file))}:${m.line} ${m.message}`),
    )
    .sort();
}

async function scenario(files: Record<string, string>, change: (dir: string) => void): Promise<void> {
  const dir = tempDir("mcq-eslint-late-");
  const xdg = tempDir("mcq-eslint-late-xdg-");
  write(dir, { "package.json": '{"name":"app","type":"module"}\n', "x.js": "foo();\nbar();\n", ...files });
  const s = await connectStdio({
    args: ["--allowed-paths", dir],
    cwd: dir,
    env: { XDG_CACHE_HOME: xdg, MCP_CODE_QUALITY_RESULT_CACHE: "true" },
  });
  const lint = () => s.call("lint", { path: dir, linter: "eslint" });
  try {
    const first = await lint();
    expect(found(first, dir), JSON.stringify(first).slice(0, 1500)).toEqual(["x.js:1 banned: foo"]);
    expect(found(first, dir)).toEqual(byHand(dir));
    const warm = await lint();
    expect(warm.cached).toMatch(/^(\d+) of \1 files$/);
    expect(found(warm, dir)).toEqual(["x.js:1 banned: foo"]);
    change(dir);
    const hand = byHand(dir);
    expect(hand).toEqual(["x.js:2 banned: bar"]);
    const after = await lint();
    expect(found(after, dir), JSON.stringify(after).slice(0, 1500)).toEqual(hand);
    // A server of its own over the same cache: what was stored is ESLint's verdict too.
    const fresh = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { XDG_CACHE_HOME: xdg, MCP_CODE_QUALITY_RESULT_CACHE: "true" },
    });
    try {
      const again = await fresh.call("lint", { path: dir, linter: "eslint" });
      expect(found(again, dir)).toEqual(hand);
    } finally {
      await fresh.close();
    }
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("an ESLint config's late and installed inputs are in the result cache's key", () => {
  it("a plugin in node_modules whose rule code changes", async () => {
    const plugin = "node_modules/eslint-plugin-local";
    await scenario(
      {
        [`${plugin}/package.json`]: '{"name":"eslint-plugin-local","version":"1.0.0","main":"index.js"}\n',
        [`${plugin}/index.js`]: ruleCode('"foo"'),
        "eslint.config.js":
          'import local from "eslint-plugin-local";\nexport default [{ files: ["**/*.js"], plugins: { local }, rules: { "local/banned": "error" } }];\n',
      },
      (dir) => fs.writeFileSync(path.join(dir, plugin, "index.js"), ruleCode('"bar"')),
    );
  }, 180_000);

  it("a file a rule of the project's reads on first use, while it lints", async () => {
    await scenario(
      {
        "rules/local.cjs": ruleCode(
          '(globalThis.__words ??= require("node:fs").readFileSync(require("node:path").join(__dirname, "..", "words.txt"), "utf8").trim())',
        ),
        "words.txt": "foo\n",
        "eslint.config.js":
          'import { createRequire } from "node:module";\nconst local = createRequire(import.meta.url)("./rules/local.cjs");\nexport default [{ files: ["**/*.js"], plugins: { local }, rules: { "local/banned": "error" } }];\n',
      },
      (dir) => fs.writeFileSync(path.join(dir, "words.txt"), "bar\n"),
    );
  }, 180_000);
});
