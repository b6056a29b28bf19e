/**
 * A whole-project inspection runs RuboCop once over all the files, as `rubocop` does, instead of one CLI run
 * per file (issue 29: a cold whole-project lint took 1.6x the CLI). The report is split per file, and each
 * file's exit status is what its own run gives: an offense at `info` severity does not fail (RuboCop's fail
 * level), an excluded file is not inspected, and the result cache then serves the same answer per file. The
 * batch runs in parallel, as `rubocop` does, with RuboCop's cache on for that run alone (in a folder of the
 * server's, removed after it).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const HEADER = "# frozen_string_literal: true\n\n";

function project(): string {
  const dir = tempDir("mcq-rubocop-batch-");
  fs.writeFileSync(
    path.join(dir, ".rubocop.yml"),
    [
      "AllCops:",
      "  NewCops: disable",
      "  SuggestExtensions: false",
      "  Exclude:",
      "    - 'vendor/**/*'",
      "Style/RedundantReturn:",
      "  Severity: info",
      "",
    ].join("\n"),
  );
  fs.mkdirSync(path.join(dir, "lib"));
  fs.mkdirSync(path.join(dir, "vendor"));
  fs.writeFileSync(path.join(dir, "lib", "clean.rb"), `${HEADER}puts 'clean'\n`);
  fs.writeFileSync(path.join(dir, "lib", "info.rb"), `${HEADER}def one\n  return 1\nend\n`);
  fs.writeFileSync(path.join(dir, "lib", "bad.rb"), `${HEADER}def two\n  x = 2\n  return 2\nend\n`);
  fs.writeFileSync(path.join(dir, "vendor", "skipped.rb"), "x = 1\n");
  return dir;
}

/** `rubocop --format json [file]`: the exit status and the offenses as "path:line:col cop". */
function cli(dir: string, target = "."): { status: number | null; offenses: string[] } {
  const r = spawnSync("rubocop", ["--cache", "false", "--format", "json", target], {
    cwd: dir,
    encoding: "utf8",
  });
  const doc = JSON.parse(r.stdout) as {
    files: {
      path: string;
      offenses: { cop_name: string; location: { start_line: number; start_column: number } }[];
    }[];
  };
  return {
    status: r.status,
    offenses: doc.files.flatMap((f) =>
      f.offenses.map((o) => `${f.path}:${o.location.start_line}:${o.location.start_column} ${o.cop_name}`),
    ),
  };
}

const issueKeys = (r: Record<string, unknown>) =>
  (r.issues as string[]).map((i) => {
    const [where, cop] = i.split(" ");
    return `${where?.replace(/:$/, "")} ${cop}`;
  });

describe.skipIf(missing("rubocop") || missing("ruby"))("RuboCop over a whole project, in one run", () => {
  it("reports each file and each exit status as the CLI does, fresh and from the cache", async () => {
    const dir = project();
    const whole = cli(dir);
    expect(whole.status).toBe(1);
    expect(whole.offenses.some((o) => o.startsWith("vendor/"))).toBe(false);
    expect(cli(dir, "lib/info.rb").status).toBe(0);
    expect(cli(dir, "lib/bad.rb").status).toBe(1);

    // A result cache of its own: the first call is fresh (the user's could hold these very files' answers).
    const s = await connectStdio({
      args: ["--allowed-paths", dir, "--result-cache", "true"],
      cwd: dir,
      env: { XDG_CACHE_HOME: tempDir("mcq-rubocop-batch-cache-") },
    });
    try {
      const fresh = await s.call("lint", { path: ".", linter: "rubocop" });
      expect(fresh).toMatchObject({ success: true, passed: false, returncode: 1, files_inspected: 3 });
      expect(issueKeys(fresh)).toEqual(whole.offenses);
      const cached = await s.call("lint", { path: ".", linter: "rubocop" });
      expect(cached).toMatchObject({ returncode: 1, files_inspected: 3 });
      expect(issueKeys(cached)).toEqual(whole.offenses);
      // Per file, through the cache the batch filled: the info-only file passes as `rubocop lib/info.rb` does.
      const info = await s.call("lint", { path: "lib/info.rb", linter: "rubocop" });
      expect(info).toMatchObject({ success: true, returncode: 0, issue_count: 1 });
      const bad = await s.call("lint", { path: "lib/bad.rb", linter: "rubocop" });
      expect(bad).toMatchObject({ success: true, returncode: 1 });
      // The per-file path (corrections computed, one run per file) gives the same offenses.
      const full = await s.call("lint", { path: ".", linter: "rubocop", format: "full" });
      expect(issueKeys(full)).toEqual(whole.offenses);
      // The batch ran in parallel, RuboCop's cache on for that run only: in the server's folder for this
      // project, emptied after it, and nothing written in the project.
      const parallelCache = path.join(
        os.tmpdir(),
        `mcq-${process.getuid?.() ?? "user"}`,
        `rubocop-parallel-${createHash("sha256").update(dir).digest("hex").slice(0, 20)}`,
      );
      expect(fs.readdirSync(parallelCache)).toEqual([]);
      expect(fs.readdirSync(dir).sort()).toEqual([".rubocop.yml", "lib", "vendor"]);
    } finally {
      await s.close();
    }
  });
});
