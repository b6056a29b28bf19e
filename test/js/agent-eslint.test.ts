/**
 * Seed 003's agent features on ESLint (issue 16), through the MCP client with the bundled ESLint in its
 * warm worker: inline code under a folder with its own rules, corrections on offenses, inline fixes,
 * contextual suggestions, explain_rules from the rules' meta and the config resolved for a path.
 */
import fs from "node:fs";
import { applyPatch } from "diff";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const PROJECT = path.join(FIXTURES, "js", "agent-eslint");
const CODE = "let total = 1;\nconst unused = 2;\nconsole.log(total == 1);\n";

interface Offense {
  rule_id: string;
  line: number;
  correctable: boolean;
  correction?: { safe: boolean; edits: { text: string }[] };
}
interface Explained {
  name: string;
  kind: string;
  summary: string;
  autocorrect?: string;
  configuration?: { severity?: string; options?: unknown[] };
  rules?: string[];
  did_you_mean?: string[];
  docs_url?: string;
}
const rules = (r: Record<string, unknown>) => (r.offenses as Offense[]).map((o) => o.rule_id);

describe("eslint: seed 003's agent features", () => {
  let dir: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(PROJECT);
    s = await connectStdio({ args: ["--allowed-paths", dir], cwd: dir });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lints inline code as the file it names (that folder's rules), with corrections, writing nothing", async () => {
    const strict = await s.call("lint", { path: path.join(dir, "strict", "new.js"), source_code: CODE });
    const root = await s.call("lint", { path: path.join(dir, "new.js"), source_code: CODE });
    expect(strict.success, JSON.stringify(strict)).toBe(true);
    expect(rules(strict)).toEqual(["prefer-const", "no-unused-vars", "eqeqeq"]);
    expect(rules(root)).toEqual(["prefer-const", "no-unused-vars"]);
    expect(fs.existsSync(path.join(dir, "strict", "new.js"))).toBe(false);
    const offenses = root.offenses as Offense[];
    // A fix is safe; a suggestion is reported as an unsafe correction that lint_fix applies only if asked.
    expect(offenses[0]?.correction).toMatchObject({ safe: true, edits: [{ text: "const total = 1;" }] });
    expect(offenses[1]?.correction?.safe).toBe(false);
    expect(offenses[1]?.correctable).toBe(false);
  });

  it("lint_fix on inline code returns the corrected text; contextual: false holds no-unused-vars back", async () => {
    const safe = await s.call("lint_fix", {
      path: path.join(dir, "new.js"),
      linter: "eslint",
      source_code: CODE,
    });
    expect(safe.success, JSON.stringify(safe)).toBe(true);
    expect(safe.corrected_source).toBe("const total = 1;\nconst unused = 2;\nconsole.log(total == 1);\n");
    const held = await s.call("lint_fix", {
      path: path.join(dir, "new.js"),
      linter: "eslint",
      source_code: CODE,
      safety: "unsafe",
      contextual: false,
    });
    expect(held.corrected_source).toContain("const unused = 2;");
    const applied = await s.call("lint_fix", {
      path: path.join(dir, "new.js"),
      linter: "eslint",
      source_code: CODE,
      safety: "unsafe",
      contextual: true,
    });
    expect(applied.corrected_source).not.toContain("unused");
    expect(fs.existsSync(path.join(dir, "new.js"))).toBe(false);
    // Files on disk keep their bytes: inline fixes write nothing.
    expect(fs.readFileSync(path.join(dir, "app.js"), "utf8")).toBe(CODE);
  });

  it("explain_rules: a rule with its config for a path, a typo, a plugin category", async () => {
    const atRoot = await s.call("explain_rules", {
      linter: "eslint",
      rules: ["eqeqeq", "prefer-const"],
      path: dir,
    });
    const inStrict = await s.call("explain_rules", {
      linter: "eslint",
      rules: ["eqeqeq", "prefer-cosnt", "local/"],
      path: path.join(dir, "strict", "app.js"),
    });
    expect(atRoot.success, JSON.stringify(atRoot)).toBe(true);
    const [eqRoot, preferConst] = atRoot.rules as Explained[];
    expect(eqRoot?.configuration?.severity).toBe("off");
    expect(preferConst).toMatchObject({
      kind: "rule",
      autocorrect: "safe",
      docs_url: "https://eslint.org/docs/latest/rules/prefer-const",
      configuration: { severity: "error" },
    });
    const [eqStrict, typo, category] = inStrict.rules as Explained[];
    expect(eqStrict?.configuration).toEqual(
      expect.objectContaining({ severity: "error", options: ["always"] }),
    );
    expect(typo?.kind).toBe("unknown");
    expect(typo?.did_you_mean).toContain("prefer-const");
    expect(category).toMatchObject({ kind: "category", name: "local", rules: ["local/no-foo"] });
  });

  it("a dry run's per-file diff, applied, gives the file the real fix writes; leftovers come after the fix", async () => {
    const file = path.join(dir, "strict", "app.js");
    const before = fs.readFileSync(file, "utf8");
    const dry = await s.call("lint_fix", { path: file, linter: "eslint", dry_run: true });
    expect(fs.readFileSync(file, "utf8")).toBe(before);
    const entry = (dry.files as { file: string; diff?: string; messages: { rule_id: string }[] }[])[0]!;
    expect(entry.messages.map((m) => m.rule_id)).toEqual(["no-unused-vars", "eqeqeq"]);
    const real = await s.call("lint_fix", { path: file, linter: "eslint" });
    expect(real.success).toBe(true);
    // Diffs are listed once, in `diff` (issue 30); this dry run's is the one file's.
    expect(entry.diff).toBeUndefined();
    expect(applyPatch(before, dry.diff as string)).toBe(fs.readFileSync(file, "utf8"));
    expect(fs.readFileSync(file, "utf8")).toContain("const total = 1;");
  });

  it("only/except narrow lint_fix to those rules' fixes, inline and on files", async () => {
    const code = "let total = 1;\nconsole.log(total);\n";
    const file = path.join(dir, "new.js");
    const only = await s.call("lint_fix", {
      path: file,
      linter: "eslint",
      source_code: code,
      only: ["prefer-const"],
    });
    expect(only, JSON.stringify(only)).toMatchObject({ success: true, corrected: true });
    expect(only.corrected_source).toBe("const total = 1;\nconsole.log(total);\n");
    const except = await s.call("lint_fix", {
      path: file,
      linter: "eslint",
      source_code: code,
      except: ["prefer-const"],
    });
    expect(except).toMatchObject({ success: true, corrected: false });
    expect(except.corrected_source).toBe(code);
    fs.writeFileSync(path.join(dir, "scoped.js"), code);
    const out = await s.call("lint_fix", {
      path: dir,
      linter: "eslint",
      files: ["scoped.js"],
      except: ["prefer-const"],
      dry_run: true,
    });
    expect(out).toMatchObject({ success: true, changed_files: [] });
    const inScope = await s.call("lint_fix", {
      path: dir,
      linter: "eslint",
      files: ["scoped.js"],
      only: ["prefer-const"],
    });
    expect(inScope).toMatchObject({ success: true, changed_files: [path.join(dir, "scoped.js")] });
    expect(fs.readFileSync(path.join(dir, "scoped.js"), "utf8")).toBe(
      "const total = 1;\nconsole.log(total);\n",
    );
  });
});
