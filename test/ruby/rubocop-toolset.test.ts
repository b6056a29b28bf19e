/**
 * The rubocop toolset (seed 003) through the real server and RuboCop: exact tool names, parameters and result
 * shape; inline code under a path with its own config; safe, unsafe and contextual corrections compared with the
 * rubocop CLI; a dry-run diff that applies to what a real correction writes; leftovers capped per cop; an
 * untouched file's mtime; a crashing fixture cop; a correction loop; only/except/changed in a git repository;
 * explanations.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, FIXTURES, type Connected } from "../helpers/server.js";
import { copyFixture, missing } from "../helpers/tools.js";

const FIXTURE = path.join(FIXTURES, "ruby", "agent");

interface Offense {
  cop_name: string;
  correctable: boolean;
  corrected: boolean;
  location: Record<string, number>;
  correction?: { safe: boolean; edits: Record<string, unknown>[] };
  [key: string]: unknown;
}
interface SeedFile {
  path: string;
  offenses: Offense[];
  errors: string[];
  warnings: string[];
  diff?: string;
  corrected?: boolean;
}
type Result = { files: SeedFile[]; summary: Record<string, unknown>; [key: string]: unknown };

function git(cwd: string, ...args: string[]) {
  const r = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

describe.skipIf(missing("rubocop") || missing("ruby") || missing("git"))("rubocop toolset", () => {
  let project: string;
  let s: Connected;
  const file = (name: string) => path.join(project, name);
  const read = (name: string) => fs.readFileSync(file(name), "utf8");
  const call = async (tool: string, args: Record<string, unknown>) => (await s.call(tool, args)) as Result;
  /** What `rubocop [flags] --stdin FILE` prints as the corrected source. */
  const cliCorrected = (name: string, ...flags: string[]) =>
    spawnSync("rubocop", [...flags, "--format", "quiet", "--stdin", file(name)], {
      cwd: project,
      input: read(name),
      encoding: "utf8",
    }).stdout.split(`${"=".repeat(20)}\n`)[1] ?? "";

  beforeAll(async () => {
    project = copyFixture(FIXTURE);
    git(project, "init", "-q");
    git(project, "add", ".");
    git(project, "commit", "-qm", "fixture");
    git(project, "tag", "base");
    s = await connectStdio({
      args: ["--allowed-paths", project, "--toolsets", "core,rubocop"],
      cwd: project,
    });
  });
  afterAll(async () => s?.close());

  it("lists the three tools with seed 003's parameters and rejects unknown arguments", async () => {
    const { tools } = await s.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const props = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    const scope = ["changed", "except", "max_offenses_per_cop", "only", "path", "source_code"];
    expect(props("rubocop_inspection")).toEqual(scope);
    expect(props("rubocop_autocorrection")).toEqual([...scope, "contextual", "dry_run", "safety"].sort());
    expect(byName.get("rubocop_autocorrection")?.inputSchema.required).toEqual(["safety"]);
    expect(props("rubocop_explain")).toEqual(["cop_names", "path"]);
    expect(byName.has("lint")).toBe(true); // beside core
    // Unknown arguments and a missing safety are invalid arguments (MCP InvalidParams).
    await expect(
      s.client.callTool({ name: "rubocop_inspection", arguments: { path: ".", fix: true } }),
    ).rejects.toThrow(/unknown argument\(s\) fix/);
    await expect(
      s.client.callTool({ name: "rubocop_autocorrection", arguments: { path: "app.rb" } }),
    ).rejects.toThrow(/safety/);
  });

  it("inspection: files and summary as --format json reports them, each offense with its correction", async () => {
    const direct = JSON.parse(
      spawnSync("rubocop", ["--format", "json", "."], { cwd: project, encoding: "utf8" }).stdout,
    ) as { files: { path: string; offenses: Offense[] }[] };
    const r = await call("rubocop_inspection", { path: "." });
    expect(Object.keys(r).sort()).toEqual(["files", "success", "summary"]);
    expect(r.summary).toEqual({
      target_file_count: 5,
      offense_count: 17,
      unreported_offenses: {},
      error_count: 1,
      warning_count: 1,
    });
    // Files without offenses are left out; the offenses are RuboCop's own, plus `correction`, except that the
    // contextual cops' offenses are not correctable while editing.
    expect(r.files.map((f) => f.path)).toEqual(["app.rb", "crash.rb", "loop.rb", "many.rb"]);
    const contextual = ["Lint/UnusedMethodArgument", "Style/EmptyMethod"];
    for (const f of r.files) {
      const expected = direct.files.find((d) => d.path === f.path)?.offenses ?? [];
      expect(f.offenses.map(({ correction: _c, ...o }) => o)).toEqual(
        expected.map((o) => (contextual.includes(o.cop_name) ? { ...o, correctable: false } : o)),
      );
    }
    const app = r.files[0]?.offenses ?? [];
    // Each edit also in upstream's field names (offsets 0-based, in characters).
    expect(app.find((o) => o.cop_name === "Style/RedundantReturn")?.correction).toEqual({
      safe: true,
      edits: [
        {
          line: 4,
          column: 3,
          end_line: 4,
          end_column: 10,
          text: "",
          start_line: 4,
          begin_pos: 57,
          end_pos: 64,
          replacement: "",
        },
      ],
    });
    expect(app.find((o) => o.cop_name === "Style/StringConcatenation")?.correction?.safe).toBe(false);
    // Held back while editing: not correctable, yet its edits are there.
    expect(app.find((o) => o.cop_name === "Lint/UnusedMethodArgument")).toMatchObject({
      correctable: false,
      correction: {
        safe: true,
        edits: [{ line: 3, column: 17, end_line: 3, end_column: 23, text: "_unused" }],
      },
    });
  });

  it("inline source_code: linted as example.rb, or under path with that directory's .rubocop.yml", async () => {
    const code = "# frozen_string_literal: true\n\nputs 'hi'\n";
    const plain = await call("rubocop_inspection", { source_code: code });
    expect(plain.files).toEqual([]);
    expect(plain.summary).toMatchObject({ target_file_count: 1, offense_count: 0 });
    const strict = await call("rubocop_inspection", { source_code: code, path: "strict/new.rb" });
    expect(strict.files).toHaveLength(1);
    expect(strict.files[0]?.path).toBe("strict/new.rb");
    expect(strict.files[0]?.offenses.map((o) => o.cop_name)).toEqual(["Style/StringLiterals"]);
    expect(fs.existsSync(file("strict/new.rb"))).toBe(false);
    // Autocorrection of inline code returns the corrected text and writes nothing.
    const fixed = await call("rubocop_autocorrection", {
      source_code: code,
      path: "strict/new.rb",
      safety: true,
    });
    expect(fixed.source_code).toBe('# frozen_string_literal: true\n\nputs "hi"\n');
    expect(fs.existsSync(file("strict/new.rb"))).toBe(false);
    // A cop crashing on inline code fails the call.
    const crash = await s.call("rubocop_autocorrection", { source_code: read("crash.rb"), safety: true });
    expect(crash).toMatchObject({ success: false, error_type: "tool_error" });
    expect(crash.error).toMatch(/Custom\/Crash/);
    const bad = await s.call("rubocop_inspection", { source_code: code, changed: true });
    expect(bad).toMatchObject({ success: false, error_type: "invalid_input" });
  });

  it("safe, unsafe and contextual corrections of one file, as the rubocop CLI makes them", async () => {
    const before = read("app.rb");
    const held = "Lint/UnusedMethodArgument,Style/EmptyMethod";
    const expectations: [Record<string, unknown>, string][] = [
      [{ safety: true }, cliCorrected("app.rb", "--autocorrect", "--except", held)],
      [{ safety: false }, cliCorrected("app.rb", "--autocorrect-all", "--except", held)],
      [{ safety: true, contextual: true }, cliCorrected("app.rb", "--autocorrect")],
      [{ safety: false, contextual: true }, cliCorrected("app.rb", "--autocorrect-all")],
    ];
    expect(new Set(expectations.map(([, text]) => text)).size).toBe(4);
    for (const [args, expected] of expectations) {
      const r = await call("rubocop_autocorrection", { path: "app.rb", ...args });
      expect(r.files[0]).toMatchObject({ path: "app.rb", corrected: true });
      expect(read("app.rb")).toBe(expected);
      expect((r.transaction as Record<string, unknown>).result).toBe("commit");
      fs.writeFileSync(file("app.rb"), before);
    }
    expect(read("app.rb")).toContain("def greet(name, unused)");
    const safe = await call("rubocop_autocorrection", { path: "app.rb", safety: true, dry_run: true });
    // Left over after safe corrections: the unsafe one, and the held-back ones with their edits.
    expect(safe.files[0]?.offenses.map((o) => [o.cop_name, o.correctable])).toEqual([
      ["Lint/UnusedMethodArgument", false],
      ["Style/StringConcatenation", true],
      ["Style/EmptyMethod", false],
    ]);
    expect(safe.files[0]?.offenses[0]?.correction?.edits).toHaveLength(1);
  });

  it("dry run: nothing written; the diff, applied, gives what a real correction writes; leftovers located in it", async () => {
    const before = read("many.rb");
    const dry = await call("rubocop_autocorrection", { path: ".", safety: false, dry_run: true });
    expect(read("many.rb")).toBe(before);
    expect(dry.dry_run).toBe(true);
    const many = dry.files.find((f) => f.path === "many.rb") as SeedFile;
    expect(many.diff).toContain("+  'done'");
    // Leftovers: at most five per cop across the files (loop.rb has one, many.rb seven), the rest counted;
    // located in the corrected code.
    const useless = dry.files.flatMap((f) =>
      f.offenses.filter((o) => o.cop_name === "Lint/UselessAssignment"),
    );
    expect(useless).toHaveLength(5);
    expect(dry.summary.unreported_offenses).toEqual({ "Lint/UselessAssignment": 3 });
    // Layout/EmptyLines removes line 3: `a = 1`, at line 5 in the file, is at line 4 in the corrected code.
    expect(many.offenses.map((o) => o.location.start_line)).toEqual([4, 5, 6, 7]);
    expect(dry.summary.corrected_file_count).toBe(3); // app.rb, crash.rb, many.rb
    const capped = await call("rubocop_autocorrection", {
      path: "many.rb",
      safety: true,
      dry_run: true,
      max_offenses_per_cop: 3,
    });
    expect(capped.files[0]?.offenses).toHaveLength(3);
    expect(capped.summary.unreported_offenses).toEqual({ "Lint/UselessAssignment": 4 });
    const clean = fs.statSync(file("clean.rb")).mtimeMs;
    const real = await call("rubocop_autocorrection", { path: ".", safety: false });
    for (const f of dry.files.filter((x) => x.diff)) {
      const after = read(f.path);
      expect(applyPatch(git(project, "show", `HEAD:${f.path}`), f.diff as string)).toBe(after);
    }
    expect(real.files.find((f) => f.path === "many.rb")?.offenses).toEqual(many.offenses);
    expect(fs.statSync(file("clean.rb")).mtimeMs).toBe(clean);
    expect(real.files.map((f) => f.path)).not.toContain("clean.rb");
    await s.call("rollback", { path: project });
    expect(read("many.rb")).toBe(before);
    // Inspection lists every offense unless capped.
    const inspected = await call("rubocop_inspection", { path: "many.rb" });
    expect(inspected.files[0]?.offenses.map((o) => o.cop_name)).toEqual([
      "Layout/EmptyLines",
      ...Array(7).fill("Lint/UselessAssignment"),
      "Style/StringLiterals",
    ]);
  });

  it("a crashing cop is in the file's errors (a warning in its warnings) while the other cops report and correct", async () => {
    const r = await call("rubocop_inspection", { path: "crash.rb" });
    expect(r.files[0]?.errors).toEqual([
      `An error occurred while Custom/Crash cop was inspecting ${file("crash.rb")}:3:0.`,
    ]);
    expect(r.files[0]?.offenses.map((o) => o.cop_name)).toEqual([
      "Style/RedundantReturn",
      "Style/StringLiterals",
    ]);
    expect(r.files[0]?.warnings).toEqual([`Custom/Caution: careful (from file: ${file("crash.rb")}:7:0)`]);
    expect(r.summary).toMatchObject({ error_count: 1, warning_count: 1 });
    const fixed = await call("rubocop_autocorrection", { path: "crash.rb", safety: true });
    expect(read("crash.rb")).toBe(
      "# frozen_string_literal: true\n\ndef explode\n  'boom'\nend\n\ndef caution\n  1\nend\n",
    );
    expect(fixed.files[0]).toMatchObject({ corrected: true, offenses: [] });
    expect(fixed.files[0]?.errors[0]).toMatch(/Custom\/Crash cop/);
    await s.call("rollback", { path: project });
  });

  it("a correction loop leaves the file unchanged, with the loop in errors and the offenses it has", async () => {
    const before = read("loop.rb");
    const mtime = fs.statSync(file("loop.rb")).mtimeMs;
    const r = await call("rubocop_autocorrection", { path: "loop.rb", safety: true });
    expect(read("loop.rb")).toBe(before);
    expect(fs.statSync(file("loop.rb")).mtimeMs).toBe(mtime);
    expect(r.files[0]?.errors).toEqual([
      `Infinite loop detected in ${file("loop.rb")} and caused by Custom/PingToPong -> Custom/PongToPing`,
    ]);
    expect(r.files[0]?.offenses.map((o) => o.cop_name)).toEqual([
      "Lint/UselessAssignment",
      "Custom/PingToPong",
    ]);
    expect(r.files[0]?.corrected).toBe(false);
  });

  it("only, except and changed narrow the run; contradictions are invalid_input", async () => {
    const only = await call("rubocop_inspection", { path: ".", only: ["Lint"] });
    expect(new Set(only.files.flatMap((f) => f.offenses.map((o) => o.cop_name)))).toEqual(
      new Set(["Lint/UnusedMethodArgument", "Lint/UselessAssignment"]),
    );
    const except = await call("rubocop_inspection", {
      path: "app.rb",
      except: ["Style", "Lint/UnusedMethodArgument"],
    });
    expect(except.files).toEqual([]);
    const one = await call("rubocop_autocorrection", {
      path: "app.rb",
      safety: false,
      only: ["Style/StringConcatenation"],
      dry_run: true,
    });
    expect(one.files[0]?.diff).toContain('+  return "hello #{name}"');
    const contradiction = await s.call("rubocop_inspection", {
      path: ".",
      only: ["Lint/UselessAssignment"],
      except: ["Lint"],
    });
    expect(contradiction).toMatchObject({ success: false, error_type: "invalid_input" });
    const unknown = await s.call("rubocop_inspection", { path: ".", only: ["Lint/Nope"] });
    expect(unknown).toMatchObject({ success: false, error_type: "invalid_input" });

    fs.appendFileSync(file("clean.rb"), "x = 1\n");
    fs.writeFileSync(file("fresh.rb"), '# frozen_string_literal: true\n\nputs "new"\n');
    try {
      const changed = await call("rubocop_inspection", { path: ".", changed: true });
      expect(changed.summary.target_file_count).toBe(2);
      expect(changed.files.map((f) => f.path)).toEqual(["clean.rb", "fresh.rb"]);
      git(project, "add", ".");
      git(project, "commit", "-qm", "more");
      expect((await call("rubocop_inspection", { path: ".", changed: true })).summary.target_file_count).toBe(
        0,
      );
      const since = await call("rubocop_inspection", { path: ".", changed: "base" });
      expect(since.files.map((f) => f.path)).toEqual(["clean.rb", "fresh.rb"]);
      const badRev = await s.call("rubocop_inspection", { path: ".", changed: "no-such-rev" });
      expect(badRev).toMatchObject({ success: false, error_type: "invalid_input" });
    } finally {
      git(project, "reset", "-q", "--hard", "base");
      fs.rmSync(file("fresh.rb"), { force: true });
    }
  });

  it("explain: a cop, a typo, a department, and a path with its own configuration", async () => {
    const r = (await s.call("rubocop_explain", {
      cop_names: ["Style/EmptyMethod", "Lint/UselesAssignment", "Lint", "Style/StringConcatenation"],
    })) as { cops: Record<string, unknown>[] };
    const [cop, typo, department, unsafe] = r.cops;
    expect(cop).toMatchObject({
      name: "Style/EmptyMethod",
      linter: "rubocop",
      kind: "rule",
      summary: "Checks the formatting of empty method definitions.",
      bad_example: "def foo(bar)\nend\n\ndef self.foo(bar)\nend\n",
      autocorrect: "contextual",
      docs_url: "https://docs.rubocop.org/rubocop/cops_style.html#styleemptymethod",
      configuration: { Enabled: true, EnforcedStyle: "compact" },
    });
    expect(cop?.description).toMatch(/^Checks for the formatting of empty method definitions/);
    expect(cop?.good_example).toContain("def foo(bar); end");
    expect(
      spawnSync("rubocop", ["--show-docs-url", "Style/EmptyMethod"], { encoding: "utf8" }).stdout.trim(),
    ).toBe(cop?.docs_url);
    expect(typo).toMatchObject({ name: "Lint/UselesAssignment", unknown: true });
    expect((typo?.did_you_mean as string[])[0]).toBe("Lint/UselessAssignment");
    expect(department).toMatchObject({ name: "Lint", kind: "category" });
    expect(department?.rules).toContain("Lint/UselessAssignment");
    expect(unsafe).toMatchObject({ autocorrect: "unsafe" });
    const root = (await s.call("rubocop_explain", { cop_names: ["Style/StringLiterals"] })) as {
      cops: { configuration: Record<string, unknown> }[];
    };
    const strict = (await s.call("rubocop_explain", {
      cop_names: ["Style/StringLiterals"],
      path: "strict",
    })) as {
      cops: { configuration: Record<string, unknown> }[];
    };
    expect(root.cops[0]?.configuration.EnforcedStyle).toBe("single_quotes");
    expect(strict.cops[0]?.configuration.EnforcedStyle).toBe("double_quotes");
  });
});
