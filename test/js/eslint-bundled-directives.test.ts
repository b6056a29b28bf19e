/**
 * A project without an eslint.config.* (sindresorhus/got lints with xo) gets the bundled default config,
 * whose rules are not the project's: its disable comments name rules the config does not load ("Definition
 * for rule … was not found", 10 on got) or that report nothing under it ("Unused eslint-disable directive",
 * 71 on got, of 297 findings). Those are left out, counted in a note; a fix leaves the comments alone; a
 * project's own config keeps both. Compared with ESLint run by hand on the same config. The bundled ESLint.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const WRAPPED = {
  name: "p",
  type: "module",
  scripts: { test: "xo && ava" },
  devDependencies: { xo: "^1.2.3" },
};

/** Two comments written for xo's config, and one real finding (no-empty). */
const CODE = [
  "// eslint-disable-next-line unicorn/prevent-abbreviations",
  "export const one = () => 1;",
  "// eslint-disable-next-line no-console",
  "export const two = 2;",
  "if (one()) {}",
  "",
].join("\n");

interface Message {
  rule_id: string | null;
  message: string;
}

/** lint's messages, over its files. */
const messagesOf = (r: Record<string, unknown>) =>
  (r.files as { messages: Message[] }[]).flatMap((f) => f.messages);

/** The bundled default config (eslint-instances.ts's), written out for ESLint run by hand. */
async function byHand(dir: string): Promise<{ ruleId: string | null; message: string }[]> {
  const { ESLint } = await import("eslint");
  const js = (await import("@eslint/js")).default;
  const tseslint = (await import("typescript-eslint")).default;
  const globals = (await import("globals")).default;
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [
      js.configs.recommended,
      ...tseslint.configs.recommended,
      { languageOptions: { globals: { ...globals.browser, ...globals.node } } },
    ],
  });
  return (await eslint.lintFiles(["."])).flatMap((r) => r.messages);
}

describe("ESLint's problems about the project's disable comments, with the bundled default config", () => {
  let s: Connected;
  let bundled: string;
  let own: string;
  beforeAll(async () => {
    bundled = tempDir("mcq-xo-directives-");
    fs.writeFileSync(path.join(bundled, "package.json"), JSON.stringify(WRAPPED));
    fs.writeFileSync(path.join(bundled, "index.js"), CODE);
    own = tempDir("mcq-own-directives-");
    fs.writeFileSync(path.join(own, "package.json"), JSON.stringify({ name: "q", type: "module" }));
    fs.writeFileSync(
      path.join(own, "eslint.config.js"),
      'export default [{ rules: { "no-empty": "error" } }];\n',
    );
    fs.writeFileSync(path.join(own, "index.js"), CODE);
    s = await connectStdio({ args: ["--allowed-paths", `${bundled},${own}`] });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("lint leaves them out, says how many and why; ESLint by hand reports them beside the same finding", async () => {
    const hand = await byHand(bundled);
    expect(hand.map((m) => m.ruleId)).toEqual(["unicorn/prevent-abbreviations", null, "no-empty"]);
    expect(hand).toContainEqual(
      expect.objectContaining({
        ruleId: "unicorn/prevent-abbreviations",
        message: "Definition for rule 'unicorn/prevent-abbreviations' was not found.",
      }),
    );
    const r = await s.call("lint", { path: bundled, linter: "eslint" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(messagesOf(r).map((m) => m.rule_id)).toEqual(["no-empty"]);
    expect(r.issue_count).toBe(1);
    expect(r.files).toEqual([expect.objectContaining({ errorCount: 1, warningCount: 0 })]);
    expect(r.notes).toContain(
      `left out 1 unused eslint-disable directive and 1 "Definition for rule … was not found" error: ` +
        "the project's disable comments were written for its own config, not the bundled default one " +
        "(with its own config they are reported)",
    );
  }, 60_000);

  it("lint_fix does not delete the disable comments the bundled config finds unused", async () => {
    const r = await s.call("lint_fix", { path: bundled, linter: "eslint" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(fs.readFileSync(path.join(bundled, "index.js"), "utf8")).toBe(CODE);
  }, 60_000);

  it("a project's own config keeps both", async () => {
    const r = await s.call("lint", { path: own, linter: "eslint" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    const messages = messagesOf(r)
      .map((m) => m.message)
      .sort();
    expect(messages).toEqual([
      "Definition for rule 'unicorn/prevent-abbreviations' was not found.",
      "Empty block statement.",
      "Unused eslint-disable directive (no problems were reported from 'no-console').",
    ]);
    expect(JSON.stringify(r.notes)).not.toContain("left out");
  }, 60_000);

  it("explain_rules names an existing file it resolved the config for, with the bundled-config notes", async () => {
    const r = await s.call("explain_rules", { linter: "eslint", rules: ["no-empty"], path: bundled });
    expect(r.success, JSON.stringify(r)).toBe(true);
    const [rule] = r.rules as { configuration?: { for_file?: string } }[];
    const file = path.join(fs.realpathSync(bundled), "index.js");
    expect(rule?.configuration?.for_file).toBe(file);
    const notes = r.notes as string[];
    expect(notes).toContain(
      `configuration: the settings the config resolves for ${file}, a javascript file of ${fs.realpathSync(bundled)}`,
    );
    expect(
      notes.some((n) => n.startsWith("no eslint.config.*") && n.includes("bundled default config")),
    ).toBe(true);
    expect(notes.some((n) => n.startsWith("warning: the project lints with xo"))).toBe(true);
  }, 60_000);
});
