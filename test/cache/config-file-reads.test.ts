/**
 * A red team's two projects had the same `eslint.config.js`, package.json and x.js; the config reads
 * `./banned.txt`, which differs. Linted one after the other, each by a server of its own over one result
 * cache, the second answered `passed: true, cached: "2 of 2 files"` where ESLint fails it: the entries were
 * keyed by the config's modules, not by what the config read. The ESLint worker now records the files
 * project code reads through `fs` (read whichever way: `fs.readFileSync`, a named `readFileSync` import, in
 * a module the config imports) and they are part of the key by content.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const DEFAULT_IMPORT = `import fs from "node:fs";
const banned = fs.readFileSync(new URL("./banned.txt", import.meta.url), "utf8").trim();
export default [{ files: ["**/*.js"], rules: { "no-restricted-syntax": ["error", { selector: \`Identifier[name='\${banned}']\`, message: "banned identifier" }] } }];
`;

/** The read in a module the config imports, through a named import. */
const NAMED_IMPORT = `import { banned } from "./banned.js";
export default [{ files: ["**/*.js"], rules: { "no-restricted-syntax": ["error", { selector: \`Identifier[name='\${banned}']\`, message: "banned identifier" }] } }];
`;
const BANNED_JS = `import { readFileSync } from "node:fs";
export const banned = readFileSync(new URL("./banned.txt", import.meta.url), "utf8").trim();
`;

function project(root: string, name: string, config: Record<string, string>, banned: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries({
    ...config,
    "package.json": '{"name":"app","type":"module"}\n',
    "x.js": "evalme();\n",
    "banned.txt": `${banned}\n`,
  }))
    fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

/** `tool` on `dir`, by a server of its own allowed `dir` alone, over the cache in `xdg`. */
async function call(
  dir: string,
  xdg: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const s = await connectStdio({
    args: ["--allowed-paths", dir],
    cwd: dir,
    env: { XDG_CACHE_HOME: xdg, MCP_CODE_QUALITY_RESULT_CACHE: "true" },
  });
  try {
    return await s.call(tool, { path: dir, ...args });
  } finally {
    await s.close();
  }
}

const lint = (dir: string, xdg: string) => call(dir, xdg, "lint", { linter: "eslint" });

describe("what an ESLint config reads is in the result cache's key", () => {
  it.each([
    ["fs.readFileSync in the config", { "eslint.config.js": DEFAULT_IMPORT }],
    [
      "a named readFileSync in a module the config imports",
      { "eslint.config.js": NAMED_IMPORT, "banned.js": BANNED_JS },
    ],
  ])(
    "%s: another project's verdict is not served",
    async (_name, config) => {
      const root = tempDir("mcq-config-reads-");
      const xdg = tempDir("mcq-config-reads-xdg-");
      const attacker = project(root, "attacker", config, "nothing");
      const victim = project(root, "victim", config, "evalme");
      const first = await lint(attacker, xdg);
      expect(first, JSON.stringify(first).slice(0, 1500)).toMatchObject({ success: true, passed: true });
      const second = await lint(victim, xdg);
      expect(second, JSON.stringify(second).slice(0, 1500)).toMatchObject({ success: true, passed: false });
      expect(JSON.stringify(second)).toContain("banned identifier");
      // Its own entry is kept, and found again.
      const again = await lint(victim, xdg);
      expect(again).toMatchObject({ passed: false });
      expect(again.cached).toMatch(/^(\d+) of \1 files$/);
    },
    120_000,
  );
});

/** A Prettier config that reads its print width from a file beside it. */
const PRETTIER_CONFIG = `import fs from "node:fs";
export default { printWidth: Number(fs.readFileSync(new URL("./width.txt", import.meta.url), "utf8")) };
`;

describe("a Prettier config in JavaScript", () => {
  it("can read any file: its entries are its project's alone", async () => {
    const root = tempDir("mcq-config-reads-");
    const xdg = tempDir("mcq-config-reads-xdg-");
    const make = (name: string, width: string) => {
      const dir = path.join(root, name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "prettier.config.js"), PRETTIER_CONFIG);
      fs.writeFileSync(path.join(dir, "package.json"), '{"name":"app","type":"module"}\n');
      fs.writeFileSync(path.join(dir, "width.txt"), `${width}\n`);
      fs.writeFileSync(path.join(dir, "x.js"), "const a = [1111111111, 2222222222, 3333333333];\n");
      return dir;
    };
    const check = (dir: string) => call(dir, xdg, "format_check", { formatter: "prettier" });
    const attacker = make("attacker", "80");
    const victim = make("victim", "20");
    const first = await check(attacker);
    expect(first, JSON.stringify(first).slice(0, 1500)).toMatchObject({ success: true });
    expect(JSON.stringify(first.files_to_format ?? first)).not.toContain("x.js");
    const second = await check(victim);
    expect(second, JSON.stringify(second).slice(0, 1500)).toMatchObject({ success: true });
    expect(JSON.stringify(second)).toContain("x.js");
  }, 120_000);
});
