// Issue 13: why pyright is kept warm as its language server and not in its watch mode. On the
// generated 200-module project of python-types.bench.mjs, side by side in one run, after each one-file
// edit (body-only, then signature): the server's type_check (pyright's language server, pull
// diagnostics), `pyright --outputjson --watch` run directly (timed from the write to its next report)
// and a cold `pyright --outputjson`. Medians of BENCH_TYPES_RUNS (default 10).
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { generate, moduleText, run, server } from "./python-types.bench.mjs";
import { median, ms } from "./stats.mjs";

const PYRIGHT = createRequire(import.meta.url).resolve("pyright");
const RUNS = Number(process.env.BENCH_TYPES_RUNS ?? 10);
const EDITED = 100;

/** `pyright --outputjson --watch`: resolves each time it prints a whole report (a `}` line ends one). */
function watchMode(dir) {
  const child = spawn(process.execPath, [PYRIGHT, "--outputjson", "--watch"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "ignore"],
  });
  child.stdout.setEncoding("utf8");
  let buffer = "";
  const reports = [];
  let waiter;
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n}\n"); end >= 0; end = buffer.indexOf("\n}\n")) {
      reports.push(JSON.parse(buffer.slice(buffer.indexOf("{"), end + 2)));
      buffer = buffer.slice(end + 3);
    }
    if (reports.length && waiter) waiter(reports.shift());
  });
  return {
    /** The next report not yet taken (one printed before the call counts). */
    next: () =>
      reports.length
        ? Promise.resolve(reports.shift())
        : new Promise((resolve) => (waiter = (r) => ((waiter = undefined), resolve(r)))),
    /** Drops reports printed so far, so that the next one is after what comes now. */
    drain: () => void reports.splice(0),
    close: () => child.kill(),
  };
}

export default async function bench() {
  const project = generate();
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-lsp-cache-"));
  const edited = path.join(project, "pkg", `m${EDITED}.py`);
  const rows = [];
  const s = await server(project, cache);
  const watch = watchMode(project);
  let mismatches = 0;
  try {
    let t = performance.now();
    await watch.next();
    const firstWatch = performance.now() - t;
    const first = await s.check("pyright");
    await s.check("pyright"); // its language server starts after the first (cold) answer
    const firstCold = await run(process.execPath, [PYRIGHT, "--outputjson"], project);
    rows.push({
      case: "first (cold) check",
      "server (language server) ms": ms(first.ms),
      "watch mode ms": ms(firstWatch),
      "cold pyright ms": ms(firstCold.ms),
    });
    for (const kind of ["body-only edit", "signature edit"]) {
      const server = [];
      const watched = [];
      const direct = [];
      for (let i = 0; i < RUNS; i++) {
        const text =
          kind === "body-only edit"
            ? moduleText(EDITED, { k: i + 2 })
            : moduleText(EDITED, { signature: i % 2 === 0 });
        watch.drain();
        const report = watch.next();
        t = performance.now();
        fs.writeFileSync(edited, text);
        const w = await report;
        watched.push(performance.now() - t);
        const l = await s.check("pyright");
        server.push(l.ms);
        const d = await run(process.execPath, [PYRIGHT, "--outputjson"], project);
        direct.push(d.ms);
        const coldCount = JSON.parse(d.stdout).generalDiagnostics.length;
        if (l.count !== coldCount || w.generalDiagnostics.length !== coldCount) mismatches++;
        process.stderr.write(
          `${JSON.stringify({ kind, i, server: ms(l.ms), watch: ms(watched.at(-1)), cold: ms(d.ms), counts: [l.count, w.generalDiagnostics.length, coldCount] })}\n`,
        );
      }
      rows.push({
        case: `after a ${kind}`,
        "server (language server) ms": ms(median(server)),
        "watch mode ms": ms(median(watched)),
        "cold pyright ms": ms(median(direct)),
        "cold / server": ms(median(direct) / median(server)),
        "cold / watch": ms(median(direct) / median(watched)),
      });
    }
  } finally {
    watch.close();
    await s.close();
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
  return {
    title: "pyright kept warm: the server's language server against pyright's watch mode, 200 modules",
    rows,
    notes: [
      `medians of ${RUNS} edits each, the three sides one after another per edit; diagnostic counts differed from cold in ${mismatches} edits`,
      "server: the whole type_check call over stdio; watch mode: from the write to the end of its next report",
    ],
  };
}
