// A generated monorepo for the result-cache benchmark (never committed): Python and TypeScript packages
// with real configs (ruff in pyproject.toml, a flat ESLint config with typescript-eslint's recommended
// rules, Prettier, tsconfig), one file in twenty with a finding or two. Written in a temp folder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const pyFile = (p, i) =>
  [
    `"""Module ${i} of package ${p}."""`,
    "",
    ...(i % 20 === 0 ? ["import os"] : []),
    "import sys",
    "",
    "",
    `def handler_${i}(event, context=None):`,
    `    """Handle event ${i}."""`,
    "    items = [x * 2 for x in range(10)]",
    i % 20 === 0 ? `    if event == None:` : `    if event is None:`,
    "        return items",
    `    return {"count": len(items), "argv": sys.argv, "id": ${i}}`,
    "",
    "",
    `class Service${i}:`,
    `    def __init__(self, name: str) -> None:`,
    "        self.name = name",
    "",
    "    def describe(self) -> str:",
    `        return f"service {self.name} ${i}"`,
    "",
  ].join("\n");

const tsFile = (p, i) =>
  [
    `// Module ${i} of package ${p}.`,
    `export interface Item${i} {`,
    "  id: number;",
    "  name: string;",
    "}",
    "",
    `export function build${i}(n: number): Item${i}[] {`,
    `  ${i % 20 === 0 ? "let" : "const"} out: Item${i}[] = [];`,
    "  for (let k = 0; k < n; k++) out.push({ id: k, name: `item ${k}` });",
    "  return out;",
    "}",
    "",
    `export const total${i} = (items: Item${i}[]): number => items.reduce((sum, it) => sum + it.id, 0);`,
    i % 20 === 0 ? `const unused${i} = ${i};` : "",
    "",
  ].join("\n");

/** Writes the monorepo and returns its (real) path and its files. */
export function generateMonorepo({ pyFiles = 5000, tsFiles = 5000, perPackage = 250, repo }) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-monorepo-")));
  const nm = path.join(repo, "node_modules");
  fs.writeFileSync(
    path.join(root, "pyproject.toml"),
    '[project]\nname = "mono"\nversion = "0"\n\n[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E", "F", "I", "UP"]\n',
  );
  fs.writeFileSync(
    path.join(root, "package.json"),
    JSON.stringify({ name: "mono", private: true, type: "module" }),
  );
  fs.writeFileSync(path.join(root, ".prettierrc.json"), JSON.stringify({ printWidth: 100 }));
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\n.ruff_cache/\n.eslintcache\n");
  fs.writeFileSync(
    path.join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext" } }),
  );
  fs.writeFileSync(
    path.join(root, "eslint.config.mjs"),
    [
      `import js from ${JSON.stringify(path.join(nm, "@eslint/js/src/index.js"))};`,
      `import tseslint from ${JSON.stringify(path.join(nm, "typescript-eslint/dist/index.js"))};`,
      "export default [js.configs.recommended, ...tseslint.configs.recommended];",
      "",
    ].join("\n"),
  );
  const files = { py: [], ts: [] };
  for (let i = 0; i < pyFiles; i++) {
    const p = Math.floor(i / perPackage);
    const dir = path.join(root, "packages", `py-${p}`, "src", `pkg${p}`);
    fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, `mod${i}.py`);
    fs.writeFileSync(f, pyFile(p, i));
    files.py.push(f);
  }
  for (let i = 0; i < tsFiles; i++) {
    const p = Math.floor(i / perPackage);
    const dir = path.join(root, "packages", `ts-${p}`, "src");
    fs.mkdirSync(dir, { recursive: true });
    const f = path.join(dir, `file${i}.ts`);
    fs.writeFileSync(f, tsFile(p, i));
    files.ts.push(f);
  }
  return { root, files };
}
