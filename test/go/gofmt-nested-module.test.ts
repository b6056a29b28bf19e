/**
 * A Go module with a module of its own below it (viper's `remote/`). gofmt walks into it, so the root's run
 * listed its file and the nested module's run listed it again: format_check counted it twice and `check`
 * showed it under both `gofmt (.)` and `gofmt (remote)`. Each module's run now covers its own files (a
 * finding belongs to the innermost module); all runs together list what `gofmt -l .` by hand lists, once.
 * A go.mod under testdata is no project of its own (projects.ts): its files stay the root's.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, PATH_WITH_TOOLS, runCheck } from "../helpers/check.js";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

const BAD = "package x\n\nfunc  bad( ) {  }\n";

describe.skipIf(missing("gofmt"))("gofmt on a Go module holding a module", () => {
  let root: string;
  let cached: Connected;
  let fresh: Connected;
  let byHand: string[];
  beforeAll(async () => {
    root = tempDir("mcq-gofmt-nested-");
    write(path.join(root, "go.mod"), "module example.com/app\n\ngo 1.21\n");
    write(path.join(root, "app.go"), "package app\n\nfunc Ok() {}\n");
    write(path.join(root, "internal", "bad.go"), BAD);
    write(path.join(root, "remote", "go.mod"), "module example.com/app/remote\n\ngo 1.21\n");
    write(path.join(root, "remote", "remote.go"), BAD);
    write(path.join(root, "remote", "sub", "ok.go"), "package sub\n");
    write(path.join(root, "testdata", "mod", "go.mod"), "module example.com/fixture\n\ngo 1.21\n");
    write(path.join(root, "testdata", "mod", "t.go"), BAD);
    const r = spawnSync("gofmt", ["-l", "."], { cwd: root, encoding: "utf8" });
    byHand = r.stdout.split("\n").filter(Boolean).sort();
    const args = ["--allowed-paths", root, "--rate-limit", "false"];
    [cached, fresh] = await Promise.all([
      connectStdio({
        args: [...args, "--result-cache", "true", "--result-cache-dir", tempDir("mcq-gofmt-nested-cache-")],
        cwd: root,
      }),
      connectStdio({ args: [...args, "--result-cache", "false"], cwd: root }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([cached?.close(), fresh?.close()]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("format_check lists what gofmt -l . lists, each file once, with or without a language, cache on or off", async () => {
    expect(byHand).toEqual(["internal/bad.go", "remote/remote.go", "testdata/mod/t.go"]);
    for (const args of [{ path: root }, { path: root, language: "go" }, { path: root, formatter: "gofmt" }])
      for (const [name, s] of [
        ["cached", cached],
        ["fresh", fresh],
        ["cached, again", cached],
      ] as const) {
        const r = await s.call("format_check", args);
        const label = `${JSON.stringify(args)} (${name})`;
        expect(r.success, `${label}: ${JSON.stringify(r)}`).toBe(true);
        expect(r.unformatted_count, label).toBe(byHand.length);
        expect([...(r.unformatted_files as string[])].sort(), label).toEqual(byHand);
      }
    // The nested module on its own: its file, as gofmt there lists it.
    const inner = await fresh.call("format_check", { path: path.join(root, "remote") });
    expect(inner.unformatted_files).toEqual(["remote/remote.go"]);
  });

  it("a dry autoformat with language go names each file once", async () => {
    const r = await fresh.call("autoformat", { path: root, language: "go", dry_run: true });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect([...(r.changed_files as string[])].sort()).toEqual(byHand);
  });

  it("check shows each finding under its innermost module's gofmt only", async () => {
    const json = parseJson(
      await runCheck([".", "--json", "--only", "gofmt", "--result-cache", "false"], {
        cwd: root,
        env: { PATH: PATH_WITH_TOOLS },
      }),
    );
    const where = json.checks.map((c) => `${path.relative(root, c.target) || "."} ${c.finding_count}`).sort();
    expect(where).toEqual([". 2", "remote 1"]);
    const files = json.findings.map((f) => f.file).sort();
    expect(files).toEqual(byHand);
  }, 120_000);
});
