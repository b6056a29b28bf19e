// Generated projects of realistic size for the check benchmark (never committed), one per language, each
// with a few findings: Python (ruff, ty), TypeScript (Prettier, ESLint, tsc), Go, Rust, Ruby (RuboCop).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

function write(root, rel, text) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function dir(prefix) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function pythonProject(files = 150) {
  const root = dir("mcq-bench-py-");
  write(
    root,
    "pyproject.toml",
    '[project]\nname = "bench"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["E", "F", "I"]\n',
  );
  for (let i = 0; i < files; i++)
    write(
      root,
      `bench/pkg${i % 10}/mod${i}.py`,
      [
        ...(i % 15 === 0 ? ["import os"] : []),
        "from dataclasses import dataclass",
        "",
        "",
        "@dataclass",
        `class Record${i}:`,
        "    name: str",
        "    size: int = 0",
        "",
        "    def grow(self, by: int) -> int:",
        "        self.size += by",
        "        return self.size",
        "",
        "",
        `def make${i}(name: str) -> Record${i}:`,
        `    return Record${i}(name${i % 25 === 0 ? ", 'not an int'" : ""})`,
        "",
      ].join("\n"),
    );
  for (let d = 0; d < 10; d++) write(root, `bench/pkg${d}/__init__.py`, "");
  write(root, "bench/__init__.py", "");
  return root;
}

export function typescriptProject(repo, files = 150) {
  const root = dir("mcq-bench-ts-");
  const nm = path.join(repo, "node_modules");
  write(
    root,
    "package.json",
    JSON.stringify({ name: "bench-ts", private: true, type: "module", devDependencies: { prettier: "3" } }),
  );
  write(root, ".prettierrc.json", "{}\n");
  write(
    root,
    "tsconfig.json",
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "bundler",
      },
      include: ["src"],
    }),
  );
  write(
    root,
    "eslint.config.mjs",
    `import js from ${JSON.stringify(path.join(nm, "@eslint/js/src/index.js"))};\nimport tseslint from ${JSON.stringify(path.join(nm, "typescript-eslint/dist/index.js"))};\nexport default [js.configs.recommended, ...tseslint.configs.recommended];\n`,
  );
  for (let i = 0; i < files; i++)
    write(
      root,
      `src/mod${i % 10}/file${i}.ts`,
      [
        `export interface Row${i} {`,
        "  id: number;",
        "  label: string;",
        "}",
        "",
        `export function rows${i}(n: number): Row${i}[] {`,
        `  const out: Row${i}[] = [];`,
        "  for (let k = 0; k < n; k++) out.push({ id: k, label: `row ${k}` });",
        "  return out;",
        "}",
        "",
        i % 20 === 0 ? `export const broken${i}: number = "text";` : `export const ok${i} = ${i};`,
        i % 15 === 0 ? `const  unused${i}  =  1;` : "",
        "",
      ].join("\n"),
    );
  return root;
}

export function goProject(files = 40) {
  const root = dir("mcq-bench-go-");
  write(root, "go.mod", "module example.com/bench\n\ngo 1.22\n");
  for (let i = 0; i < files; i++) {
    const pkg = `pkg${i % 5}`;
    write(
      root,
      `${pkg}/file${i}.go`,
      [
        `package ${pkg}`,
        "",
        'import "fmt"',
        "",
        `// Describe${i} describes a value.`,
        `func Describe${i}(v int) string {`,
        i % 10 === 0 ? `\treturn fmt.Sprintf("%d %s", v)` : `\treturn fmt.Sprintf("%d", v)`,
        "}",
        "",
        i % 13 === 0 ? `func  Spaced${i}()  {}` : "",
        "",
      ].join("\n"),
    );
  }
  write(root, "main.go", 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("bench") }\n');
  return root;
}

export function rustProject(files = 30) {
  const root = dir("mcq-bench-rs-");
  write(
    root,
    "Cargo.toml",
    '[package]\nname = "bench-rs"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  );
  const mods = [];
  for (let i = 0; i < files; i++) {
    mods.push(`pub mod m${i};`);
    write(
      root,
      `src/m${i}.rs`,
      [
        `pub fn total${i}(items: &[u32]) -> u32 {`,
        i % 10 === 0
          ? "    let mut sum = 0; for x in items { sum = sum + x; }\n    return sum;"
          : "    items.iter().sum()",
        "}",
        "",
        `pub fn name${i}() -> String {`,
        `    String::from("m${i}")`,
        "}",
        "",
      ].join("\n"),
    );
  }
  write(root, "src/lib.rs", `${mods.join("\n")}\n`);
  return root;
}

export function rubyProject(files = 75) {
  const root = dir("mcq-bench-rb-");
  write(root, "Gemfile", 'source "https://rubygems.org"\n');
  write(root, ".rubocop.yml", "AllCops:\n  NewCops: disable\n  SuggestExtensions: false\n");
  for (let i = 0; i < files; i++)
    write(
      root,
      `lib/bench/file${i}.rb`,
      [
        "# frozen_string_literal: true",
        "",
        "module Bench",
        `  # Item ${i}.`,
        `  class Item${i}`,
        "    def initialize(name)",
        "      @name = name",
        "    end",
        "",
        "    def label",
        i % 10 === 0 ? '      return "item " + @name' : '      "item #{@name}"',
        "    end",
        "  end",
        "end",
        "",
      ].join("\n"),
    );
  return root;
}

/** One Ruby file of about `lines` lines (methods with a few offenses). */
export function bigRubyFile(root, lines = 2173) {
  const out = ["# frozen_string_literal: true", "", "# A big file.", "class Big"];
  for (let i = 0; out.length < lines - 2; i++)
    out.push(
      `  def method_${i}(value)`,
      i % 7 === 0 ? '    return "v" + value.to_s' : '    "v#{value}"',
      "  end",
      "",
    );
  out.push("end", "");
  write(root, "big.rb", out.join("\n"));
  return path.join(root, "big.rb");
}
