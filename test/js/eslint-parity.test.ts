/**
 * ESLint through lint_fix / lint / explain_rules as its CLI and its packages say (issue 27): only/except on
 * files apply those rules' fixes (no false "fix loop"), unknown rule names are refused with a did-you-mean,
 * leftovers carry ESLint's corrections, explanations take examples from a plugin's shipped docs and say
 * whether a rule fixes with the options it resolves to.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, REPO_ROOT, type Connected } from "../helpers/server.js";
import { copyFixture } from "../helpers/tools.js";

const ESLINT_BIN = path.join(REPO_ROOT, "node_modules", ".bin", "eslint");
type Json = Record<string, unknown>;

describe("ESLint as its own CLI fixes and explains", () => {
  let dir: string;
  let ts: string;
  let app: string;
  let original: string;
  let s: Connected;
  beforeAll(async () => {
    dir = copyFixture(path.join(FIXTURES, "js", "eslint-parity"));
    // The plugin installed as a package, as npm would (its docs/ ship with it).
    fs.cpSync(path.join(dir, "plugin"), path.join(dir, "node_modules", "eslint-plugin-demo"), {
      recursive: true,
    });
    ts = copyFixture(path.join(FIXTURES, "js", "no-toolchain"));
    app = path.join(dir, "app.js");
    original = fs.readFileSync(app, "utf8");
    s = await connectStdio({ args: ["--allowed-paths", `${dir},${ts}`], cwd: dir });
  });
  afterAll(async () => s?.close());

  it("lint_fix with only on files applies those rules' fixes, dry run and real, without a false fix loop", async () => {
    const args = { path: ".", linter: "eslint", files: ["app.js"], only: ["prefer-const", "dot-notation"] };
    const dry = await s.call("lint_fix", { ...args, dry_run: true });
    expect(dry).toMatchObject({ success: true, changed_files: [app], summary: { error_count: 0 } });
    expect((dry.files as Json[])[0]).not.toHaveProperty("errors");
    expect(fs.readFileSync(app, "utf8")).toBe(original);
    const r = await s.call("lint_fix", args);
    expect(r).toMatchObject({ success: true, changed_files: [app] });
    expect(fs.readFileSync(app, "utf8")).toBe(
      "const total = 1;\nconst o = { x: 1 };\nif (!!o.x) console.log(o.x, total);\n",
    );
    expect(await s.call("rollback", { path: dir })).toMatchObject({ success: true });
    // except: every fix but curly's; the rest as `eslint --fix` writes them.
    const except = await s.call("lint_fix", {
      path: ".",
      linter: "eslint",
      files: ["app.js"],
      except: ["curly"],
    });
    expect(except).toMatchObject({ success: true, changed_files: [app] });
    expect(fs.readFileSync(app, "utf8")).toBe(
      "const total = 1;\nconst o = { x: 1 };\nif (o.x) console.log(o.x, total);\n",
    );
    expect(await s.call("rollback", { path: dir })).toMatchObject({ success: true });
    const all = await s.call("lint_fix", { path: ".", linter: "eslint", files: ["app.js"] });
    const mine = fs.readFileSync(app, "utf8");
    expect(await s.call("rollback", { path: dir })).toMatchObject({ success: true });
    expect(all.success).toBe(true);
    const direct = copyFixture(dir);
    spawnSync(ESLINT_BIN, ["--fix", "app.js"], { cwd: direct, encoding: "utf8" });
    expect(mine).toBe(fs.readFileSync(path.join(direct, "app.js"), "utf8"));
  });

  it("an unknown rule name in only or except is invalid_input with a did-you-mean", async () => {
    const r = await s.call("lint", { path: ".", linter: "eslint", only: ["prefer-cons"] });
    expect(r).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(r.error).toBe('only: eslint has no rule or group "prefer-cons"; did you mean prefer-const?');
    const plugin = await s.call("lint_fix", { path: ".", linter: "eslint", except: ["demo/no-fo"] });
    expect(plugin.error).toBe('except: eslint has no rule or group "demo/no-fo"; did you mean demo/no-foo?');
    expect(fs.readFileSync(app, "utf8")).toBe(original);
  });

  it("leftovers carry ESLint's corrections: a suggestion as an unsafe edit", async () => {
    const r = await s.call("lint_fix", { path: ts, linter: "eslint", files: ["src/util.ts"], dry_run: true });
    const [file] = r.files as { messages: Json[] }[];
    expect(file!.messages).toEqual([
      {
        line: 6,
        column: 24,
        end_line: 6,
        end_column: 27,
        rule_id: "@typescript-eslint/no-explicit-any",
        severity: "error",
        message: "Unexpected any. Specify a different type.",
        fixable: false,
        suggestions: 2,
        message_id: "unexpectedAny",
        correction: {
          safe: false,
          description:
            "Use `unknown` instead, this will force you to explicitly, and safely assert the type is correct.",
          edits: [{ line: 6, column: 24, end_line: 6, end_column: 27, text: "unknown" }],
        },
      },
    ]);
  });

  it("explain_rules: examples from a plugin's shipped docs, none for rules without; fixability from the options", async () => {
    const r = await s.call("explain_rules", {
      path: ".",
      linter: "eslint",
      rules: ["demo/no-foo", "eqeqeq"],
    });
    const [foo, eq] = r.rules as Json[];
    expect(foo).toMatchObject({
      name: "demo/no-foo",
      kind: "rule",
      bad_example: "const foo = 1;\n",
      good_example: "const bar = 1;\n",
      autocorrect: "safe",
    });
    expect(eq).not.toHaveProperty("bad_example");
    expect(r.notes).toContain(
      "no bad/good examples for eqeqeq: their package ships no docs page (docs/rules/<rule>.md), and ESLint's rule meta has none; see docs_url",
    );
    // no-explicit-any has a fix, switched off unless fixToUnknown: with the resolved options only its
    // suggestions correct it.
    const any = await s.call("explain_rules", {
      path: ts,
      linter: "eslint",
      rules: ["@typescript-eslint/no-explicit-any"],
    });
    expect((any.rules as Json[])[0]).toMatchObject({ autocorrect: "unsafe" });
  });
});
