/**
 * Seed 003's agent features on ruff (issue 16), through the MCP client with the real ruff CLI: inline
 * code under a path with its own config, only/except, per-rule caps, safe/unsafe/contextual fixes,
 * dry-run diffs equal to the real fix, leftovers located after the fix, untouched files, `changed`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { splitDiff } from "../../src/findings/diff-budget.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";
import { noRuff, PATH_WITH_RUFF, RUFF_CLI } from "../fix/helpers.js";

const PROJECT = path.join(FIXTURES, "python", "agent-project");

interface Offense {
  path: string;
  line: number;
  rule_id: string;
  correctable: boolean;
  correction?: { safe: boolean; edits: unknown[] };
}
interface FileEntry {
  file: string;
  status: string;
  diff?: string;
  messages: { rule_id: string; line: number; fixable?: boolean; correction?: { safe: boolean } }[];
}

/** What ruff itself reports for `code` as `file` (the reference). */
function ruffOnStdin(cwd: string, file: string, code: string): string[] {
  const r = spawnSync(
    RUFF_CLI,
    ["check", "--no-fix", "--no-cache", "--output-format", "json-lines", "--stdin-filename", file, "-"],
    { cwd, input: code, encoding: "utf8" },
  );
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { code: string }).code);
}

const rules = (list: { rule_id: string }[]) => list.map((o) => o.rule_id);
const entry = (r: Record<string, unknown>, name: string) =>
  (r.files as FileEntry[]).find((f) => f.file.endsWith(name));

describe.skipIf(noRuff())("ruff: seed 003's agent features", () => {
  let root: string;
  let s: Connected;
  /** A fresh copy of the fixture inside the allowed root. */
  const copy = () => {
    const dir = path.join(root, `p${fs.readdirSync(root).length}`);
    fs.cpSync(PROJECT, dir, { recursive: true });
    return dir;
  };

  beforeAll(async () => {
    root = tempDir("mcq-agent-ruff-");
    s = await connectStdio({ args: ["--allowed-paths", root], cwd: root, env: { PATH: PATH_WITH_RUFF } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lints inline code as the file it names: that folder's config applies, nothing is written", async () => {
    const dir = copy();
    const code = "import sys\nimport os\n\nprint(os.sep)\n";
    const strict = await s.call("lint", { path: path.join(dir, "strict", "new.py"), source_code: code });
    const atRoot = await s.call("lint", { path: dir, source_code: code });
    expect(strict.success).toBe(true);
    expect(rules(strict.offenses as Offense[])).toEqual(["I001", "F401"]);
    expect(rules(strict.offenses as Offense[])).toEqual(ruffOnStdin(dir, "strict/new.py", code));
    // A directory: the code is example.py in it, under the root's config (no import sorting).
    expect(rules(atRoot.offenses as Offense[])).toEqual(["F401"]);
    expect((atRoot.offenses as Offense[])[0]?.path).toBe(path.relative(root, path.join(dir, "example.py")));
    expect((strict.summary as { target_file_count: number }).target_file_count).toBe(1);
    expect(fs.existsSync(path.join(dir, "strict", "new.py"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "example.py"))).toBe(false);
    // Offenses say what a fix would do: F401's removal is safe, F841's is unsafe but still reported.
    const app = await s.call("lint", { path: path.join(dir, "app.py"), format: "full" });
    const offenses = app.offenses as Offense[];
    expect(offenses.find((o) => o.rule_id === "F401")?.correction?.safe).toBe(true);
    const f841 = offenses.find((o) => o.rule_id === "F841");
    expect(f841?.correctable).toBe(true);
    expect(f841?.correction?.safe).toBe(false);
    expect(offenses.find((o) => o.rule_id === "F821")?.correctable).toBe(false);
  });

  it("only/except by id and prefix; contradictions and changed with inline code are invalid_input", async () => {
    const dir = copy();
    const only = await s.call("lint", { path: path.join(dir, "app.py"), only: ["F"] });
    expect(rules(only.offenses as Offense[])).toEqual(["F401", "F841", "F821"]);
    const except = await s.call("lint", { path: path.join(dir, "app.py"), except: ["F8", "E711"] });
    expect(rules(except.offenses as Offense[])).toEqual(["F401"]);
    const contradiction = await s.call("lint", { path: dir, only: ["F401"], except: ["F"] });
    expect(contradiction.error_type).toBe("invalid_input");
    expect(contradiction.error).toContain('except "F" removes all of only "F401"');
    const inlineChanged = await s.call("lint", { path: dir, source_code: "x = 1\n", changed: true });
    expect(inlineChanged.error_type).toBe("invalid_input");
    const missingPath = await s.call("lint", { path: path.join(dir, "nope.py") });
    expect(missingPath.error_type).toBe("path_validation");
  });

  it("max_per_rule lists N per rule and counts the rest in summary.unreported_offenses", async () => {
    const dir = copy();
    const all = await s.call("lint", { path: dir, format: "full" });
    const f401 = rules(all.offenses as Offense[]).filter((r) => r === "F401").length;
    const capped = await s.call("lint", { path: dir, max_per_rule: 2 });
    expect(rules(capped.offenses as Offense[]).filter((r) => r === "F401")).toHaveLength(2);
    expect((capped.summary as { unreported_offenses: Record<string, number> }).unreported_offenses).toEqual({
      F401: f401 - 2,
    });
    expect(capped.issue_count).toBe(all.issue_count);
  });

  it("safe, unsafe and contextual on the same file; safe stays safe under `unsafe-fixes = true`", async () => {
    const runs: [Record<string, unknown>, string[]][] = [
      [{ safety: "safe", contextual: false }, ["F401", "F841", "E711", "F821"]],
      [{ safety: "safe" }, ["F841", "E711", "F821"]],
      [{ safety: "unsafe", contextual: false }, ["F401", "F841", "F821"]],
      [{ safety: "unsafe", contextual: true }, ["F821"]],
    ];
    for (const [args, left] of runs) {
      const dir = copy();
      const file = path.join(dir, "app.py");
      const r = await s.call("lint_fix", { path: file, ...args });
      expect(r.success, JSON.stringify(r)).toBe(true);
      expect(rules(entry(r, "app.py")!.messages), JSON.stringify(args)).toEqual(left);
      // The file ruff itself writes with the same choice.
      const ref = copy();
      const flags = args.safety === "unsafe" ? ["--unsafe-fixes"] : ["--no-unsafe-fixes"];
      const held = args.contextual === false ? ["--extend-unfixable", "F401,F841,F842,ERA001"] : [];
      spawnSync(RUFF_CLI, ["check", "--fix", "--no-cache", ...flags, ...held, "app.py"], { cwd: ref });
      expect(fs.readFileSync(file, "utf8")).toBe(fs.readFileSync(path.join(ref, "app.py"), "utf8"));
    }
    // strict/ruff.toml says `unsafe-fixes = true`: safety safe still leaves F841's unsafe removal.
    const dir = copy();
    const plain = await s.call("lint_fix", { path: path.join(dir, "strict") });
    expect(plain.command).toContain("--no-unsafe-fixes");
    expect(fs.readFileSync(path.join(dir, "strict", "mod.py"), "utf8")).toContain("unused = 2");
    expect(rules(entry(plain, "mod.py")!.messages)).toEqual(["F841"]);
  });

  it("a dry run's per-file diff, applied, gives exactly the file the real fix writes", async () => {
    const dry = copy();
    const real = copy();
    const before = fs.readFileSync(path.join(dry, "app.py"), "utf8");
    const r = await s.call("lint_fix", { path: dry, safety: "unsafe", dry_run: true, contextual: true });
    expect(fs.readFileSync(path.join(dry, "app.py"), "utf8")).toBe(before);
    const app = entry(r, "app.py")!;
    expect(app.status).toBe("would-fix");
    const fixed = await s.call("lint_fix", { path: real, safety: "unsafe", contextual: true });
    expect(fixed.success).toBe(true);
    const written = fs.readFileSync(path.join(real, "app.py"), "utf8");
    // The dry run's diff of app.py (diffs are listed once, in `diff`, by file).
    const diff = splitDiff(r.diff as string).parts.find((d) => d.name === "app.py")!.text;
    expect(applyPatch(before, diff)).toBe(written);
    // The leftover is located in the fixed text, not the original.
    const f821 = app.messages.find((m) => m.rule_id === "F821")!;
    expect(written.split("\n")[f821.line - 1]).toContain("undefined_name");
    expect(f821.line).not.toBe(8);
  });

  it("leftovers after a fix: all of them by default (within the budget), max_per_rule caps and counts the rest; an untouched file keeps its mtime", async () => {
    const dir = copy();
    const many = path.join(dir, "many.py");
    const clean = path.join(dir, "clean.py");
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(many, past, past);
    fs.utimesSync(clean, past, past);
    const r = await s.call("lint_fix", { path: dir, contextual: false });
    expect(r.success).toBe(true);
    // 7 in many.py, 1 in app.py, 1 in strict/mod.py: all held back (contextual: false), all listed, as
    // issue_count says (issue 30: what is counted can be paged).
    const listed = (r.files as FileEntry[]).flatMap((f) => f.messages).filter((m) => m.rule_id === "F401");
    expect(listed).toHaveLength(9);
    expect(entry(r, "many.py")!.messages.filter((m) => m.rule_id === "F401")).toHaveLength(7);
    const summary = r.summary as { unreported_offenses: Record<string, number>; offense_count: number };
    expect(summary.unreported_offenses.F401).toBeUndefined();
    expect(Math.round(fs.statSync(many).mtimeMs)).toBe(past.getTime());
    expect(Math.round(fs.statSync(clean).mtimeMs)).toBe(past.getTime());
    const capped = await s.call("lint_fix", {
      path: many,
      contextual: false,
      max_per_rule: 1,
      dry_run: true,
    });
    expect(entry(capped, "many.py")!.messages).toHaveLength(1);
    expect((capped.summary as { unreported_offenses: Record<string, number> }).unreported_offenses).toEqual({
      F401: 6,
    });
  });

  it("lint_fix on inline code returns the corrected text and writes nothing", async () => {
    const dir = copy();
    const target = path.join(dir, "strict", "inline.py");
    const r = await s.call("lint_fix", {
      path: target,
      source_code: "import sys\nimport os\n\nprint(os.sep)\n",
    });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.corrected_source).toBe("import os\n\nprint(os.sep)\n");
    expect(r.changed_files).toEqual([]);
    expect(fs.existsSync(target)).toBe(false);
    const only = await s.call("lint_fix", {
      path: target,
      source_code: "import sys\nimport os\n\nprint(os.sep)\n",
      only: ["I"],
    });
    expect(only.corrected_source).toBe("import os\nimport sys\n\nprint(os.sep)\n");
  });

  it("changed: files git says changed since HEAD (untracked included) or since a revision", async () => {
    const dir = copy();
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
        cwd: dir,
        encoding: "utf8",
      });
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "one");
    const first = git("rev-parse", "HEAD").trim();
    fs.writeFileSync(path.join(dir, "clean.py"), "import json\n");
    git("commit", "-q", "-am", "two");
    fs.appendFileSync(path.join(dir, "app.py"), "import re\n");
    fs.writeFileSync(path.join(dir, "strict", "extra.py"), "import abc\n");
    const sinceHead = await s.call("lint", { path: dir, changed: true });
    expect([...new Set((sinceHead.offenses as Offense[]).map((o) => o.path))]).toEqual([
      "app.py",
      "strict/extra.py",
    ]);
    // From a subfolder, its untracked files too (git names them from the top of the work tree).
    const sub = await s.call("lint", { path: path.join(dir, "strict"), changed: true });
    expect((sub.offenses as Offense[]).map((o) => o.path)).toEqual(["strict/extra.py"]);
    const sinceFirst = await s.call("lint", { path: dir, changed: first, only: ["F401"] });
    expect([...new Set((sinceFirst.offenses as Offense[]).map((o) => o.path))]).toEqual([
      "app.py",
      "clean.py",
      "strict/extra.py",
    ]);
    const fix = await s.call("lint_fix", { path: dir, changed: true, dry_run: true });
    expect((fix.changed_files as string[]).map((f) => path.relative(dir, f))).toEqual([
      "app.py",
      "strict/extra.py",
    ]);
    const bad = await s.call("lint", { path: dir, changed: "--output=x" });
    expect(bad.error_type).toBe("invalid_input");
    const unknown = await s.call("lint", { path: dir, changed: "no-such-branch" });
    expect(unknown.error_type).toBe("invalid_input");
    const notRepo = await s.call("lint", { path: copy(), changed: true });
    expect(notRepo.error_type).toBe("invalid_input");
  });

  it("explain_rules: a rule with examples and its config for a path, a typo, a category", async () => {
    const dir = copy();
    const atRoot = await s.call("explain_rules", { linter: "ruff", rules: ["E711", "I001"], path: dir });
    const inStrict = await s.call("explain_rules", {
      rules: ["i001", "F841", "unused-imprt", "F"],
      path: path.join(dir, "strict", "mod.py"),
    });
    expect(atRoot.success, JSON.stringify(atRoot)).toBe(true);
    type Item = Record<string, unknown> & { configuration?: Record<string, unknown> };
    const [e711, i001Root] = atRoot.rules as Item[];
    expect(e711).toMatchObject({
      name: "E711",
      kind: "rule",
      autocorrect: "unsafe",
      docs_url: "https://docs.astral.sh/ruff/rules/none-comparison/",
    });
    expect(e711?.bad_example).toContain("!= None");
    expect(e711?.good_example).toContain("is not None");
    expect(i001Root?.configuration?.enabled).toBe(false);
    expect(inStrict.linter).toBe("ruff");
    const [i001, f841, typo, category] = inStrict.rules as Item[];
    // strict/ruff.toml turns import sorting on and unsafe fixes on.
    expect(i001?.configuration).toMatchObject({ enabled: true, fixable: true, unsafe_fixes: "enabled" });
    expect(String(i001?.configuration?.settings_file)).toMatch(/strict\/ruff\.toml$/);
    expect(f841?.autocorrect).toBe("contextual");
    expect(typo).toMatchObject({ kind: "unknown" });
    expect(typo?.did_you_mean).toContain("unused-import");
    expect(category).toMatchObject({ name: "F", kind: "category" });
    expect(category?.rules).toEqual(expect.arrayContaining(["F401", "F841"]));
    expect(category?.rules).not.toContain("FBT001");
  });
});
