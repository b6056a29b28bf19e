// Warm Python type checks (issue 13) on a generated project of 200 modules that import each other:
// type_check through the server (mypy via its daemon, pyright via its language server) after a one-file edit,
// side by side with a cold `mypy` / `pyright` of the same version run directly, alternating call by call.
// Also: after an edit that changes a signature used elsewhere, after a body-only edit of a module nothing
// imports (m199: pyright re-checks the importers of an edited file, transitively, and m100 has 99), and
// each first (cold) call of a fresh server.
// For mypy, also against the project's own incremental `mypy` (its .mypy_cache present, warmed first).
// BENCH_TYPES_CHECKERS=mypy (or pyright) runs one checker only.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, ms } from "./stats.mjs";

/** A tool result's JSON: its text content (structuredContent only comes with an outputSchema). */
const resultJson = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PYRIGHT = createRequire(import.meta.url).resolve("pyright");
const MODULES = 200;
const RUNS = Number(process.env.BENCH_TYPES_RUNS ?? 10);
/** Each row also goes to stderr as soon as it is measured (a long run cut short keeps what it had). */
const progress = (row) => process.stderr.write(`${JSON.stringify(row)}\n`);
const EDITED = 100;
const LEAF = MODULES - 1;
const CHECKERS = (process.env.BENCH_TYPES_CHECKERS ?? "mypy,pyright").split(",");

export function moduleText(i, { k = 1, signature = false } = {}) {
  const deps = i === 0 ? [] : [...new Set([i - 1, Math.floor(i / 2), (i * 37) % i])];
  const imports = deps.map((d) => `from pkg.m${d} import C${d}, f${d}`).join("\n");
  const uses = deps.map((d) => `f${d}(v) + C${d}(v).total()`).join(" + ") || "v";
  const ret = signature ? "str" : "int";
  const body = signature ? `    return str(y)` : `    return y`;
  return `${imports}


class C${i}:
    def __init__(self, n: int) -> None:
        self.n = n

    def total(self) -> int:
        return self.n * ${i} + 1


def f${i}(x: int) -> ${ret}:
    y = x + ${k}
${body}


def g${i}(values: list[int]) -> int:
    return sum(${uses} for v in values)


def h${i}(names: dict[str, int]) -> list[str]:
    out: list[str] = []
    for name, count in sorted(names.items()):
        if count > ${i % 7}:
            out.append(name.upper())
    return out
`;
}

export function generate() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-types-")));
  fs.mkdirSync(path.join(dir, "pkg"));
  fs.writeFileSync(path.join(dir, "pkg", "__init__.py"), "");
  for (let i = 0; i < MODULES; i++) fs.writeFileSync(path.join(dir, "pkg", `m${i}.py`), moduleText(i));
  fs.writeFileSync(
    path.join(dir, "pyproject.toml"),
    '[project]\nname = "gen"\nversion = "0"\n\n[tool.mypy]\nfiles = ["pkg"]\n\n[tool.pyright]\ninclude = ["pkg"]\n',
  );
  return dir;
}

export function run(program, args, cwd) {
  return new Promise((resolve) => {
    const t = performance.now();
    execFile(program, args, { cwd, maxBuffer: 64 << 20 }, (err, stdout) =>
      resolve({ ms: performance.now() - t, stdout, code: err ? err.code : 0 }),
    );
  });
}

export async function server(project, cache) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(root, "dist", "cli.js"),
      "--mode",
      "stdio",
      "--log-level",
      "warn",
      "--rate-limit",
      "false",
      "--allowed-paths",
      project,
      "--audit-log",
      path.join(cache, "audit.log"),
    ],
    cwd: project,
    env: { ...process.env, XDG_CACHE_HOME: cache },
    stderr: "pipe",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return {
    async check(checker) {
      const t = performance.now();
      const r = await client.callTool({ name: "type_check", arguments: { path: ".", checker } }, undefined, {
        timeout: 600_000,
      });
      const out = resultJson(r);
      if (!out.success) throw new Error(`type_check ${checker} failed: ${out.error}`);
      return { ms: performance.now() - t, count: out.issue_count, notes: out.notes };
    },
    close: () => client.close(),
  };
}

const countMypy = (stdout) => stdout.split("\n").filter((l) => /: error: /.test(l)).length;
const countPyright = (stdout) => JSON.parse(stdout).generalDiagnostics.length;

export default async function bench() {
  const project = generate();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-types-cache-"));
  const mypyVersion = (await run("mypy", ["--version"], project)).stdout.trim();
  const pyrightVersion = (await run(process.execPath, [PYRIGHT, "--version"], project)).stdout.trim();
  const cold = {
    mypy: () => run("mypy", ["--cache-dir", "/dev/null"], project),
    pyright: () => run(process.execPath, [PYRIGHT, "--outputjson"], project),
  };
  const count = { mypy: countMypy, pyright: countPyright };
  /** The project's own `mypy`, incremental: its cache (.mypy_cache in the project) is kept between runs. */
  const cached = { mypy: () => run("mypy", [], project) };
  const rows = [];
  const notes = [];
  let mismatches = 0;
  const fallbacks = [];
  try {
    for (const checker of CHECKERS) {
      if (cached[checker]) await cached[checker](); // fills the cache
      const s = await server(project, cache);
      const first = await s.check(checker);
      notes.push(`${checker} first call: ${first.notes.find((n) => /daemon|language server/.test(n))}`);
      // Untimed: pyright's language server starts after the first (cold) answer; this waits for it.
      await s.check(checker);
      const coldDirect = await cold[checker]();
      rows.push({
        case: `${checker}: first call of a fresh server (cold)`,
        "server median ms": ms(first.ms),
        "cold direct median ms": ms(coldDirect.ms),
        ratio: ms(coldDirect.ms / first.ms),
        runs: 1,
      });
      progress(rows.at(-1));
      for (const kind of [
        "body-only edit",
        "signature edit",
        "body-only edit of m199, which nothing imports",
      ]) {
        const module = kind.includes("m199") ? LEAF : EDITED;
        const file = path.join(project, "pkg", `m${module}.py`);
        const warm = [];
        const direct = [];
        const incremental = [];
        for (let i = 0; i < RUNS; i++) {
          const text =
            kind === "signature edit"
              ? moduleText(module, { signature: i % 2 === 0 })
              : moduleText(module, { k: i + 2 });
          fs.writeFileSync(file, text);
          const w = await s.check(checker);
          const coldNote = w.notes.find((n) => /ran cold/.test(n));
          if (coldNote) fallbacks.push(coldNote);
          const d = await cold[checker]();
          const c = cached[checker] ? await cached[checker]() : undefined;
          warm.push(w.ms);
          direct.push(d.ms);
          if (c) incremental.push(c.ms);
          if (w.count !== count[checker](d.stdout)) mismatches++;
          if (c && w.count !== count[checker](c.stdout)) mismatches++;
          progress({
            checker,
            kind,
            i,
            warm_ms: ms(w.ms),
            cold_ms: ms(d.ms),
            ...(c ? { cached_ms: ms(c.ms) } : {}),
            warm: w.count,
            cold: count[checker](d.stdout),
          });
        }
        rows.push({
          case: `${checker}: warm type_check after a ${kind}`,
          "server median ms": ms(median(warm)),
          "cold direct median ms": ms(median(direct)),
          ratio: ms(median(direct) / median(warm)),
          ...(incremental.length
            ? {
                "incremental direct median ms": ms(median(incremental)),
                "ratio vs incremental": ms(median(incremental) / median(warm)),
              }
            : {}),
          runs: RUNS,
        });
        progress(rows.at(-1));
        fs.writeFileSync(file, moduleText(module));
      }
      await s.close();
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
  return {
    title: `Warm Python type checks: ${MODULES} generated modules, one-file edits`,
    rows,
    notes: [
      ...notes,
      `cold direct: \`mypy --cache-dir /dev/null\` (${mypyVersion}) and \`pyright --outputjson\` (${pyrightVersion}) in the project folder, one after each server call.`,
      "incremental direct: the project's own `mypy` with its .mypy_cache (filled before the first edit), run after each cold one.",
      "ratio = cold direct median / server median. The signature edit flips f100's return type int <-> str, breaking its callers.",
      `warm and direct diagnostic counts differed in ${mismatches} comparisons (${RUNS * 3 * CHECKERS.length} edits).`,
      `warm calls that fell back to a cold run: ${fallbacks.length}${fallbacks.length ? ` (first: ${fallbacks[0]})` : ""}.`,
      `${os.cpus().length} CPUs, Node ${process.version}.`,
    ],
  };
}
