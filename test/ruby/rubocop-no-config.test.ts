/**
 * RuboCop on a project without a .rubocop.yml (sinatra/mustermann: 3,649 offenses of RuboCop's defaults,
 * as `rubocop` by hand): a note says so, as ESLint's does for its bundled config. And Lint/Syntax's second
 * line, the parser RuboCop guessed ("(Using Ruby 2.6 parser; configure using `TargetRubyVersion` ...)"), joins
 * the first, so reports that show first lines do not present valid newer Ruby as a plain syntax error.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offenseMessage, parseRubocopOffenses } from "../../src/adapters/ruby/rubocop-run.js";
import { parseRubocopJson } from "../../src/adapters/ruby/rubocop.js";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

/** Valid Ruby 3.1 (hash shorthand), which RuboCop's default Ruby 2.6 parser cannot read. */
const SHORTHAND = "x = 1\ny = 2\nh = { x:, y: }\nputs h\n";
const PARSER_LINE = "(Using Ruby 2.6 parser; configure using `TargetRubyVersion` parameter, under `AllCops`)";

describe("Lint/Syntax's parser line", () => {
  it("joins the message's first line, from `rubocop --format json` as captured", () => {
    const captured = fs.readFileSync(
      path.join(FIXTURES, "ruby", "captured", "rubocop-syntax-ruby26.json"),
      "utf8",
    );
    expect(parseRubocopOffenses(captured)?.[0]?.message).toBe(`unexpected token tCOMMA\n${PARSER_LINE}`);
    expect(parseRubocopJson(captured, "/p/shorthand.rb")?.[0]).toMatchObject({
      rule_id: "Lint/Syntax",
      line: 3,
      message: `unexpected token tCOMMA ${PARSER_LINE}`,
    });
    // Other lines are not a parenthesized note: left as they are.
    expect(offenseMessage("first\nsecond")).toBe("first\nsecond");
    expect(offenseMessage("one line")).toBe("one line");
  });
});

interface CliOffense {
  cop_name: string;
  message: string;
}

/** `rubocop --format json .` by hand in `dir`. */
function byHand(dir: string): CliOffense[] {
  const r = spawnSync("rubocop", ["--format", "json", "."], { cwd: dir, encoding: "utf8" });
  return (JSON.parse(r.stdout) as { files: { offenses: CliOffense[] }[] }).files.flatMap((f) => f.offenses);
}

describe.skipIf(missing("rubocop") || missing("ruby"))("RuboCop without a config of the project", () => {
  let bare: string;
  let configured: string;
  let s: Connected;
  beforeAll(async () => {
    bare = tempDir("mcq-rubocop-noconfig-");
    fs.writeFileSync(path.join(bare, "shorthand.rb"), SHORTHAND);
    configured = tempDir("mcq-rubocop-config-");
    fs.writeFileSync(path.join(configured, ".rubocop.yml"), "AllCops:\n  NewCops: disable\n");
    fs.writeFileSync(path.join(configured, "shorthand.rb"), SHORTHAND);
    s = await connectStdio({ args: ["--allowed-paths", `${bare},${configured}`] });
  }, 60_000);
  afterAll(async () => s?.close());

  it("lint says RuboCop ran its defaults, with what `rubocop` reports by hand, the parser on the first line", async () => {
    const hand = byHand(bare);
    const r = await s.call("lint", { path: bare, linter: "rubocop" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    const findings = r.findings as { rule_id: string; message: string }[];
    expect(findings.map((f) => f.rule_id)).toEqual(hand.map((o) => o.cop_name));
    expect(findings.map((f) => f.message)).toEqual(hand.map((o) => offenseMessage(o.message)));
    expect(findings).toContainEqual(
      expect.objectContaining({ rule_id: "Lint/Syntax", message: `unexpected token tCOMMA ${PARSER_LINE}` }),
    );
    expect(r.notes).toContain(
      `no .rubocop.yml in ${fs.realpathSync(bare)}: RuboCop ran with its default configuration, not the project's`,
    );
  }, 60_000);

  it("check's report shows the parser line; its JSON carries the note", async () => {
    const report = (await runCheck([".", "--only", "rubocop"], { cwd: bare })).stdout;
    expect(report).toContain(`unexpected token tCOMMA ${PARSER_LINE}`);
    const json = parseJson(await runCheck([".", "--only", "rubocop", "--json"], { cwd: bare }));
    expect(json.checks[0]?.notes).toContainEqual(expect.stringMatching(/^no \.rubocop\.yml in /));
  }, 60_000);

  it("a project's .rubocop.yml: no such note", async () => {
    const r = await s.call("lint", { path: configured, linter: "rubocop" });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(JSON.stringify(r.notes)).not.toContain(".rubocop.yml");
  }, 60_000);
});
