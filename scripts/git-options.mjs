#!/usr/bin/env node
// Regenerates src/policy/git/options.json from the installed git: for every builtin, its options as git's
// own parse-options tables print them (`git <cmd> -h` for the short letters and whether a value is required
// or optional; `--git-completion-helper-all` for every long name, hidden ones included, and which can be
// negated). The policy's git model abbreviates, bundles and negates options from this table, as git does.
//   node scripts/git-options.mjs [--out FILE]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outArg = process.argv.indexOf("--out");
const out = outArg === -1 ? path.join(root, "src/policy/git/options.json") : process.argv[outArg + 1];
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "git-options-"));
// Some builtins print their options only inside a repository.
spawnSync("git", ["init", "-q"], { cwd });
const run = (args) =>
  spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    timeout: 10_000,
    env: { ...process.env, GIT_PAGER: "cat" },
  });

const version = run(["--version"])
  .stdout.trim()
  .replace(/^git version /, "");
const builtins = run(["--list-cmds=builtins"]).stdout.split("\n").filter(Boolean).sort();

/** One option line of `git X -h`: `    -m, --message <message>   text` / `--[no-]status` / `-S, --gpg-sign[=<id>]`. */
function parseHelpLine(line) {
  const m = /^ {4}(-[^\s].*?)(?: {2,}|$)/.exec(line);
  if (!m) return undefined;
  let spec = m[1].trim();
  let short;
  let long;
  const s = /^-([^-\s,]), ?/.exec(spec) ?? /^-([^-\s,])(?=\s|$|\[)/.exec(spec);
  if (s) {
    short = s[1];
    spec = spec.slice(s[0].length).trim();
  }
  const l = /^--(\[no-\])?([A-Za-z0-9][A-Za-z0-9-]*)/.exec(spec);
  if (l) {
    long = l[2];
    spec = spec.slice(l[0].length);
  }
  if (!short && !long) return undefined;
  const arg = spec.startsWith("[=") || spec.startsWith("[") ? "optional" : spec.trim() ? "required" : "none";
  return { short, long, arg };
}

const commands = {};
for (const cmd of builtins) {
  const help = run([cmd, "-h"]);
  const text = `${help.stdout}\n${help.stderr}`;
  if (!/usage: git/.test(text)) continue;
  const options = [];
  for (const line of text.split("\n")) {
    const o = parseHelpLine(line);
    if (o) options.push(o);
  }
  const completion = run([cmd, "--git-completion-helper-all"]);
  const words =
    completion.status === 0
      ? completion.stdout.split(/\s+/).filter((w) => w.startsWith("--") && w !== "--")
      : [];
  const longs = new Map();
  for (const o of options) if (o.long) longs.set(o.long, o);
  const negatable = [];
  for (const w of words) {
    const name = w.replace(/^--/, "").replace(/=$/, "");
    if (name.startsWith("no-") && longs.has(name.slice(3))) {
      negatable.push(name.slice(3));
      continue;
    }
    // `--verify` is how git spells the negation of an option named `no-verify`.
    if (longs.has(`no-${name}`)) {
      negatable.push(`no-${name}`);
      continue;
    }
    if (!longs.has(name) && !(name.startsWith("no-") && words.includes(`--${name.slice(3)}`)))
      longs.set(name, { long: name, arg: w.endsWith("=") ? "required" : "none" });
  }
  commands[cmd] = {
    options: [
      ...new Map(
        [...options.filter((o) => !o.long), ...longs.values()].map((o) => [o.long ?? `-${o.short}`, o]),
      ).values(),
    ].map((o) => ({
      ...(o.short ? { short: o.short } : {}),
      ...(o.long ? { long: o.long } : {}),
      arg: o.arg,
    })),
    negatable: [...new Set(negatable)].sort(),
  };
}
fs.rmSync(cwd, { recursive: true, force: true });
fs.writeFileSync(out, JSON.stringify({ git_version: version, builtins, commands }) + "\n");
console.log(
  `${out}: git ${version}, ${builtins.length} builtins, ${Object.keys(commands).length} with option tables`,
);
