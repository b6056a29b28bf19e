/**
 * RuboCop as its CLI inspects and corrects files on disk (issue 27; issue 26 item 8): Lint/ScriptPermission
 * reported and corrected (`chmod +x`) as `rubocop` / `rubocop -a` do, `files` scoping, the rubocop toolset's
 * upstream field names and inline corrected text, and what to do about plugins that are not installed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { copyFixture, missing, tempDir } from "../helpers/tools.js";

const SCRIPT = '#!/usr/bin/env ruby\n# frozen_string_literal: true\n\nputs "hi"\n';
const PLAIN = '# frozen_string_literal: true\n\nputs "x"\n';

interface CliOffense {
  cop_name: string;
  corrected: boolean;
  location: { start_line: number; start_column: number };
}

/** `rubocop [flags] --format json` run in `dir`: the offenses it leaves (not corrected) per file name. */
function cli(dir: string, ...flags: string[]): Record<string, string[]> {
  const r = spawnSync("rubocop", [...flags, "--format", "json", "."], { cwd: dir, encoding: "utf8" });
  const doc = JSON.parse(r.stdout) as { files: { path: string; offenses: CliOffense[] }[] };
  return Object.fromEntries(
    doc.files.map((f) => [
      f.path,
      f.offenses
        .filter((o) => !o.corrected)
        .map((o) => `${o.location.start_line}:${o.location.start_column} ${o.cop_name}`),
    ]),
  );
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe.skipIf(missing("rubocop") || missing("ruby"))("RuboCop on files as its CLI", () => {
  let dir: string;
  let plugins: string;
  let s: Connected;
  beforeAll(async () => {
    dir = tempDir("mcq-rubocop-disk-");
    fs.writeFileSync(path.join(dir, "script.rb"), SCRIPT, { mode: 0o644 });
    fs.writeFileSync(path.join(dir, "plain.rb"), PLAIN, { mode: 0o644 });
    plugins = tempDir("mcq-rubocop-plugins-");
    fs.writeFileSync(
      path.join(plugins, ".rubocop.yml"),
      "require:\n  - rubocop-nosuch\n  - rubocop-neither\n",
    );
    fs.writeFileSync(path.join(plugins, "a.rb"), PLAIN);
    s = await connectStdio({
      args: ["--allowed-paths", `${dir},${plugins}`, "--toolsets", "core,rubocop"],
      cwd: dir,
    });
  });
  afterAll(async () => s?.close());

  it("lint reports Lint/ScriptPermission as `rubocop` does on the file", async () => {
    const direct = cli(dir);
    expect(direct["script.rb"]).toContain("1:1 Lint/ScriptPermission");
    const r = await s.call("lint", { path: ".", linter: "rubocop", format: "full" });
    const offenses = r.offenses as { path: string; line: number; column: number; rule_id: string }[];
    const mine: Record<string, string[]> = {};
    for (const o of offenses) (mine[o.path] ??= []).push(`${o.line}:${o.column} ${o.rule_id}`);
    expect(mine).toEqual(direct);
    const inspection = (await s.call("rubocop_inspection", { path: "." })) as {
      files: { path: string; offenses: { cop_name: string }[] }[];
    };
    expect(inspection.files.find((f) => f.path === "script.rb")?.offenses.map((o) => o.cop_name)).toContain(
      "Lint/ScriptPermission",
    );
  });

  it("lint_fix makes the script executable as `rubocop -a` does; a dry run only shows it", async () => {
    const script = path.join(dir, "script.rb");
    const direct = copyFixture(dir);
    fs.chmodSync(path.join(direct, "script.rb"), 0o644);
    expect(cli(direct, "-a")).toEqual({ "plain.rb": [], "script.rb": [] });
    expect(mode(path.join(direct, "script.rb"))).toBe(0o755);

    const dry = await s.call("lint_fix", {
      path: ".",
      linter: "rubocop",
      files: ["script.rb"],
      dry_run: true,
    });
    expect(dry).toMatchObject({ success: true, changed_files: [script] });
    expect(dry.diff).toBe(
      "diff --git a/script.rb b/script.rb\nold mode 100644\nnew mode 100755\n" +
        "--- script.rb\n+++ script.rb\n@@ -1,4 +1,4 @@\n #!/usr/bin/env ruby\n # frozen_string_literal: true\n \n" +
        "-puts \"hi\"\n+puts 'hi'\n",
    );
    expect(mode(script)).toBe(0o644);
    expect(fs.readFileSync(script, "utf8")).toBe(SCRIPT);

    const r = await s.call("lint_fix", { path: ".", linter: "rubocop", files: ["script.rb"] });
    expect(r).toMatchObject({ success: true, passed: true, issue_count: 0, changed_files: [script] });
    expect(fs.readFileSync(script, "utf8")).toBe(fs.readFileSync(path.join(direct, "script.rb"), "utf8"));
    expect(mode(script)).toBe(0o755);
    // files scoped the fix: plain.rb keeps its offense.
    expect(fs.readFileSync(path.join(dir, "plain.rb"), "utf8")).toBe(PLAIN);
    expect(await s.call("rollback", { path: dir })).toMatchObject({ success: true });
    expect(mode(script)).toBe(0o644);
    expect(fs.readFileSync(script, "utf8")).toBe(SCRIPT);
  });

  it("files scopes RuboCop; a pattern matching nothing is invalid_input", async () => {
    const r = await s.call("lint", { path: ".", linter: "rubocop", files: ["plain.rb"] });
    expect(r.issues).toEqual([
      "plain.rb:3:6: Style/StringLiterals Prefer single-quoted strings when you don't need string interpolation or special symbols.",
    ]);
    const none = await s.call("lint", { path: ".", linter: "rubocop", files: ["lib/*.rb"] });
    expect(none).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(none.error).toBe(`argument "files" matched no file under ${dir} (rubocop): lib/*.rb`);
  });

  it("rubocop toolset: edits carry upstream's start_line/begin_pos/end_pos/replacement", async () => {
    const r = (await s.call("rubocop_inspection", { path: "plain.rb" })) as {
      files: { offenses: { correction?: { edits: Record<string, unknown>[] } }[] }[];
    };
    const edit = r.files[0]?.offenses[0]?.correction?.edits[0];
    expect(edit).toEqual({
      line: 3,
      column: 6,
      end_line: 3,
      end_column: 9,
      text: "'x'",
      start_line: 3,
      begin_pos: 36,
      end_pos: 39,
      replacement: "'x'",
    });
    expect(PLAIN.slice(36, 39)).toBe('"x"');
  });

  it("rubocop toolset: inline autocorrection's text content is the corrected code", async () => {
    const raw = await s.client.callTool({
      name: "rubocop_autocorrection",
      arguments: { source_code: PLAIN, safety: true },
    });
    expect(raw.content).toEqual([{ type: "text", text: "# frozen_string_literal: true\n\nputs 'x'\n" }]);
    expect(raw.structuredContent).toMatchObject({
      success: true,
      source_code: "# frozen_string_literal: true\n\nputs 'x'\n",
    });
  });

  it("a config whose plugins are not installed says which gems, how to install them, and that the rest loads", async () => {
    const direct = spawnSync("rubocop", ["a.rb"], { cwd: plugins, encoding: "utf8" });
    expect(direct.stderr.split("\n")[0]).toBe("cannot load such file -- rubocop-nosuch");
    const r = await s.call("lint", { path: plugins, linter: "rubocop" });
    expect(r).toMatchObject({ success: false, error_type: "tool_error" });
    expect(r.error).toBe(
      "RuboCop failed: .rubocop.yml requires RuboCop plugins that are not installed: rubocop-nosuch, rubocop-neither. " +
        "Install them with `bundle install` (with each gem in the Gemfile) or `gem install rubocop-nosuch rubocop-neither`; " +
        "the rest of .rubocop.yml loads without them",
    );
  });
});
