#!/usr/bin/env node
/**
 * Regenerates data/ruff/rules.json: ruff's own rule documentation (`ruff rule --all`, `ruff linter`) for the
 * ruff version the embedded build is (@astral-sh/ruff-wasm-nodejs in package.json), so explain_rules and
 * only/except work with the embedded ruff alone. Installs that ruff from PyPI into a temporary virtualenv
 * (python3 -m venv, pip) and removes it afterwards. Run after bumping the wasm package:
 *
 *   node scripts/generate-ruff-rules.mjs
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
const version = pkg.dependencies["@astral-sh/ruff-wasm-nodejs"];
if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`the wasm package is not pinned exactly: ${version}`);

/**
 * data/ruff/default-rules.json: the rules ruff checks when no settings select any (`--isolated`), as its
 * `--show-settings` lists them. Also run alone with a ruff of the right version:
 * `node scripts/generate-ruff-rules.mjs --defaults-only /path/to/ruff`.
 */
function writeDefaultRules(ruff, version) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-ruff-defaults-"));
  try {
    fs.writeFileSync(path.join(dir, "x.py"), "");
    const shown = execFileSync(ruff, ["check", "--isolated", "--no-cache", "--show-settings", "x.py"], {
      cwd: dir,
      encoding: "utf8",
    });
    const block = /^linter\.rules\.enabled = \[\n([\s\S]*?)^\]/m.exec(shown)?.[1];
    if (!block) throw new Error("no linter.rules.enabled in ruff's --show-settings");
    const rules = [...block.matchAll(/\(([A-Z]+[0-9]+)\),?$/gm)].map((m) => m[1]).sort();
    const out = path.join(repo, "data", "ruff", "default-rules.json");
    fs.writeFileSync(out, `${JSON.stringify({ ruff_version: version, rules })}\n`);
    console.log(`wrote ${path.relative(repo, out)}: ${rules.length} default rules of ruff ${version}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Modules removed from the standard library (3.12, 3.13), which ruff still knows for older targets. */
const REMOVED_MODULES = (
  "asynchat asyncore distutils imp smtpd aifc audioop cgi cgitb chunk crypt imghdr lib2to3 mailcap msilib " +
  "nis nntplib ossaudiodev pipes sndhdr spwd sunau telnetlib uu xdrlib"
).split(" ");

/**
 * data/ruff/stdlib.json: per target version, the modules ruff's isort counts as the standard library (which
 * come before a project's own modules when it sorts imports), as its debug log categorizes them. The
 * candidates are this machine's Python's standard library and the modules removed from it.
 */
function writeStdlib(ruff, version) {
  const names = JSON.parse(
    execFileSync("python3", ["-c", "import json, sys; print(json.dumps(sorted(sys.stdlib_module_names)))"], {
      encoding: "utf8",
    }),
  );
  const candidates = [...new Set([...names, ...REMOVED_MODULES])]
    .filter((n) => /^[A-Za-z_]\w*$/.test(n))
    .sort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-ruff-stdlib-"));
  const versions = {};
  try {
    fs.writeFileSync(path.join(dir, "x.py"), candidates.map((n) => `import ${n}\n`).join(""));
    // `default`: no target version set (ruff's own default).
    for (const target of ["default", "py37", "py38", "py39", "py310", "py311", "py312", "py313", "py314"]) {
      const chosen = target === "default" ? [] : ["--target-version", target];
      const run = spawnSync(
        ruff,
        ["check", "--isolated", "--no-cache", "-v", "--select", "I", ...chosen, "x.py"],
        {
          cwd: dir,
          encoding: "utf8",
          maxBuffer: 64 << 20,
        },
      );
      versions[target] = [
        ...new Set(
          [...run.stderr.matchAll(/Categorized '(\w+)' as Known\(StandardLibrary\)/g)].map((m) => m[1]),
        ),
      ].sort();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const out = path.join(repo, "data", "ruff", "stdlib.json");
  fs.writeFileSync(out, `${JSON.stringify({ ruff_version: version, versions })}\n`);
  console.log(`wrote ${path.relative(repo, out)}: ${versions.py310.length} standard modules for py310`);
}

if (process.argv[2] === "--defaults-only") {
  const ruff = process.argv[3] ? path.resolve(process.argv[3]) : "ruff";
  const reported = execFileSync(ruff, ["--version"], { encoding: "utf8" }).trim();
  if (reported !== `ruff ${version}`) throw new Error(`${ruff} is ${reported}, wanted ruff ${version}`);
  writeDefaultRules(ruff, version);
  writeStdlib(ruff, version);
  process.exit(0);
}

const venv = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-ruff-rules-"));
try {
  execFileSync("python3", ["-m", "venv", venv], { stdio: "inherit" });
  execFileSync(path.join(venv, "bin", "pip"), ["install", "--quiet", `ruff==${version}`], {
    stdio: "inherit",
  });
  const ruff = path.join(venv, "bin", "ruff");
  const run = (args) => JSON.parse(execFileSync(ruff, args, { encoding: "utf8", maxBuffer: 64 << 20 }));
  const reported = execFileSync(ruff, ["--version"], { encoding: "utf8" }).trim();
  if (reported !== `ruff ${version}`) throw new Error(`installed ${reported}, wanted ruff ${version}`);
  const rules = run(["rule", "--all", "--output-format", "json"])
    .filter((r) => typeof r.code === "string" && r.code)
    .map(({ code, name, linter, summary, fix_availability, explanation, preview }) => ({
      code,
      name,
      linter,
      summary,
      fix_availability,
      explanation,
      preview,
    }));
  const linters = run(["linter", "--output-format", "json"]);
  writeDefaultRules(ruff, version);
  writeStdlib(ruff, version);
  const out = path.join(repo, "data", "ruff", "rules.json");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify({ ruff_version: version, rules, linters })}\n`);
  // ruff's licence (MIT) travels with its documentation: the wheel's own copy.
  const site = execFileSync(
    path.join(venv, "bin", "python"),
    ["-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
    {
      encoding: "utf8",
    },
  ).trim();
  const distInfo = path.join(site, `ruff-${version}.dist-info`);
  const licence = ["licenses/LICENSE", "LICENSE"]
    .map((f) => path.join(distInfo, f))
    .find((f) => fs.existsSync(f));
  if (!licence) throw new Error(`no LICENSE in ${distInfo}`);
  fs.writeFileSync(
    path.join(path.dirname(out), "LICENSE"),
    `rules.json is generated from ruff ${version}'s own documentation (\`ruff rule --all\`, \`ruff linter\`),\n` +
      `under ruff's licence:\n\n${fs.readFileSync(licence, "utf8")}`,
  );
  console.log(`wrote ${path.relative(repo, out)}: ${rules.length} rules of ruff ${version}`);
} finally {
  fs.rmSync(venv, { recursive: true, force: true });
}
