/**
 * RuboCop's per-file cache keeps each call's file list: a list filtered by `files` was kept under the key of
 * the whole project's, and a later whole-project lint answered from it (rack: 1 file inspected of 107,
 * "cached: 1 of 1 file"). And `files` refused RuboCop's own targets that are not `.rb` (rack's `config.ru`
 * files: "matched no file"). Compared with rubocop by hand; the result cache on.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe.skipIf(missing("rubocop"))("RuboCop's file lists in the result cache", () => {
  const dir = tempDir("mcq-rubocop-files-");
  const trailing = "# frozen_string_literal: true\n\nx = 1 \nputs x\n";
  write(path.join(dir, ".rubocop.yml"), "AllCops:\n  NewCops: enable\n  SuggestExtensions: false\n");
  write(path.join(dir, "lib", "a.rb"), trailing);
  write(path.join(dir, "lib", "b.rb"), trailing);
  write(path.join(dir, "config.ru"), trailing);
  let s: Connected;
  beforeAll(async () => {
    s = await connectStdio({
      args: ["--allowed-paths", dir],
      cwd: dir,
      env: { XDG_CACHE_HOME: tempDir("mcq-rubocop-files-cache-"), MCP_CODE_QUALITY_RESULT_CACHE: "true" },
    });
  });
  afterAll(() => s?.close());

  /** `rubocop --format json` by hand: files inspected, offenses. */
  const byHand = (...files: string[]) => {
    const r = spawnSync("rubocop", ["--format", "json", ...files], { cwd: dir, encoding: "utf8" });
    const json = JSON.parse(r.stdout) as { summary: { inspected_file_count: number; offense_count: number } };
    return { files: json.summary.inspected_file_count, offenses: json.summary.offense_count };
  };
  const lint = async (args: Record<string, unknown>) => {
    const r = await s.call("lint", { path: dir, linter: "rubocop", ...args });
    expect(r.success, JSON.stringify(r)).toBe(true);
    return r;
  };

  it("lints a config.ru named in files, as rubocop does", async () => {
    expect(byHand("config.ru")).toEqual({ files: 1, offenses: 1 });
    const r = await lint({ files: ["config.ru"] });
    expect(r.issue_count).toBe(1);
    expect((r.issues as string[])[0]).toMatch(/^config\.ru:3:6: .*Layout\/TrailingWhitespace/);
  });

  it("answers a whole-project call after a files call with the whole project", async () => {
    const whole = byHand();
    expect(whole).toEqual({ files: 3, offenses: 3 });
    await lint({ files: ["lib/a.rb"] });
    for (let call = 0; call < 2; call++) {
      const r = await lint({});
      expect(r.issue_count).toBe(whole.offenses);
    }
  });
});
