/**
 * A repository whose root has its own pyproject.toml and holds nested Python projects with type-checker
 * settings of their own (packages/a: `[tool.mypy] strict`, pyright strict; packages/b: assignment errors off;
 * packages/d: `[tool.ty.rules]`; packages/c: none) was type-checked with the root's configuration only: 5
 * assignment errors from each checker, where each project by hand reports its own (a: mypy 2, pyright 5; b:
 * none; d: ty none). Now each nested project that configures a type checker is checked at its own root by its
 * own checkers, the root's run leaves it out, and each finding is reported once: compared with mypy (each
 * version in .tools), pyright and ty run by hand in each folder. ruff applies the nearest config per file
 * itself: the server's lint at the root equals `ruff check .` there. `mypy .` at the root by hand stops at
 * "Duplicate module named conftest" (packages/a and packages/b each have tests/conftest.py): the root's run
 * passes mypy `--exclude` for each nested project it leaves out, as one would by hand.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parseMypyOutput } from "../../src/adapters/python/mypy.js";
import { parsePyrightJson } from "../../src/adapters/python/pyright.js";
import { parseTyConcise } from "../../src/adapters/python/ty.js";
import { parseJson, runCheck } from "../helpers/check.js";
import { connectStdio, FIXTURES, REPO_ROOT } from "../helpers/server.js";
import { copyFixture, IN_CI, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";
import { treeHash } from "./tree-hash.js";

const FIXTURE = path.join(FIXTURES, "python", "nested-projects");
const PYRIGHT = createRequire(import.meta.url).resolve("pyright");
const MYPYS = ["mypy-2.4", "mypy-1.15"].map((v) => path.join(REPO_ROOT, ".tools", v, "bin"));
/** The nested projects that configure a type checker: each is checked at its own root. */
const OWN = ["packages/a", "packages/b", "packages/d"];
const absent = (bin: string, program: string) => !fs.existsSync(path.join(bin, program)) && !IN_CI;

const pathWith = (mypyBin: string) => [mypyBin, TOOLS_VENV_BIN, process.env.PATH ?? ""].join(":");

/** A copy of the fixture in a git repository of its own (as a real monorepo is). */
function monorepo(): string {
  const dir = copyFixture(FIXTURE);
  execFileSync("git", ["init", "-q", dir]);
  return dir;
}

function stdoutOf(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(program, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}

/**
 * `tool` run by hand in `project` (below `repo`), as sorted `file:line rule` relative to `repo`, leaving out
 * the folders `leaveOut` (mypy: `--exclude`; the others' findings there dropped).
 */
function byHand(
  tool: "mypy" | "pyright" | "ty",
  repo: string,
  project: string,
  mypyBin: string,
  leaveOut: readonly string[] = [],
): string[] {
  const cwd = path.join(repo, project);
  const excludes = leaveOut.flatMap((d) => ["--exclude", `^${d}/`]);
  const findings =
    tool === "mypy"
      ? parseMypyOutput(
          stdoutOf(
            path.join(mypyBin, "mypy"),
            ["--show-error-codes", "--cache-dir", "/dev/null", ...excludes, "."],
            cwd,
          ),
          cwd,
        )
      : tool === "pyright"
        ? (parsePyrightJson(stdoutOf(process.execPath, [PYRIGHT, "--outputjson"], cwd)) ?? [])
        : parseTyConcise(
            stdoutOf(path.join(TOOLS_VENV_BIN, "ty"), ["check", "--output-format", "concise"], cwd),
            cwd,
          );
  return findings
    .map((f) => `${path.relative(repo, f.file)}:${f.line} ${f.rule_id}`)
    .filter((f) => !leaveOut.some((d) => f.startsWith(`${d}/`)))
    .sort();
}

/** By hand at the root, without what the nested projects own. */
const rootByHand = (tool: "mypy" | "pyright" | "ty", repo: string, mypyBin: string) =>
  byHand(tool, repo, ".", mypyBin, OWN);

describe("nested Python projects are type-checked with their own configuration", () => {
  for (const mypyBin of MYPYS)
    it.skipIf(absent(mypyBin, "mypy"))(
      `check: each at its own root, as by hand in each folder (${path.basename(path.dirname(mypyBin))})`,
      async () => {
        const repo = monorepo();
        const before = treeHash(repo);
        const run = await runCheck([".", "--json", "--result-cache", "false", "--allowed-paths", repo], {
          cwd: repo,
          env: { PATH: pathWith(mypyBin) },
        });
        const json = parseJson(run);
        const types = json.checks.filter((c) => c.kind === "types");
        expect(types.map((c) => `${c.id} ${path.relative(repo, c.target) || "."}`).sort()).toEqual([
          "mypy .",
          "mypy packages/a",
          "mypy packages/b",
          "pyright .",
          "pyright packages/a",
          "pyright packages/b",
          "ty packages/d",
        ]);
        const found = (id: string, under: string) =>
          json.findings
            .filter((f) => f.check === id)
            .filter((f) =>
              under === "." ? !OWN.some((p) => f.file.startsWith(`${p}/`)) : f.file.startsWith(`${under}/`),
            )
            .map((f) => `${f.file}:${f.line} ${f.rule_id}`)
            .sort();
        // `mypy .` at the root alone fails: packages/a and packages/b each have a tests/conftest.py.
        expect(stdoutOf(path.join(mypyBin, "mypy"), ["--cache-dir", "/dev/null", "."], repo)).toContain(
          'error: Duplicate module named "conftest"',
        );
        // The root: its own settings, without the nested projects (packages/c has none: the root's).
        const root = rootByHand("mypy", repo, mypyBin);
        expect(root).toEqual([
          "packages/c/src/pkg_c/__init__.py:5 assignment",
          "src/rootpkg/__init__.py:5 assignment",
        ]);
        expect(found("mypy", ".")).toEqual(root);
        expect(found("pyright", ".")).toEqual(rootByHand("pyright", repo, mypyBin));
        // packages/a's strict settings: no-untyped-def and pyright's strict rules.
        expect(byHand("mypy", repo, "packages/a", mypyBin)).toContain(
          "packages/a/src/pkg_a/__init__.py:1 no-untyped-def",
        );
        for (const tool of ["mypy", "pyright"] as const)
          for (const p of ["packages/a", "packages/b"])
            expect(found(tool, p), `${tool} ${p}`).toEqual(byHand(tool, repo, p, mypyBin));
        expect(byHand("pyright", repo, "packages/a", mypyBin)).toHaveLength(5);
        expect(found("ty", "packages/d")).toEqual(byHand("ty", repo, "packages/d", mypyBin));
        expect(found("ty", "packages/d")).toEqual([]);
        // Each finding once: the root's runs report nothing in what a nested run owns.
        expect(json.findings.filter((f) => f.check === "mypy" || f.check === "pyright").length).toBe(
          [...root, ...rootByHand("pyright", repo, mypyBin)].length +
            ["packages/a", "packages/b"].flatMap((p) =>
              (["mypy", "pyright"] as const).flatMap((t) => byHand(t, repo, p, mypyBin)),
            ).length,
        );
        const rootMypy = types.find((c) => c.id === "mypy" && c.target === repo);
        expect(rootMypy?.notes).toContainEqual(
          "nested projects with their own type-checker configuration, checked at their own root: packages/a, packages/b, packages/d",
        );
        expect(json.exit_code).toBe(1);
        expect(treeHash(repo)).toBe(before);
      },
      300_000,
    );

  it.skipIf(absent(MYPYS[0] as string, "mypy") || absent(TOOLS_VENV_BIN, "ty"))(
    "type_check: each nested project at its own root; a named checker at each; the cache key follows nested configs",
    async () => {
      const repo = monorepo();
      const mypyBin = MYPYS[0] as string;
      const s = await connectStdio({
        args: ["--allowed-paths", repo, "--result-cache", "true"],
        cwd: repo,
        env: { PATH: pathWith(mypyBin), XDG_CACHE_HOME: tempDir("mcq-xdg-") },
      });
      // The issue strings: `file:line:col: rule message`, files relative to the path asked about.
      const shown = (r: Record<string, unknown>) =>
        (r.issues as string[])
          .map((l) => /^(.+?):(\d+):\d+: (\S+)/.exec(l))
          .map((m) => `${m?.[1]}:${m?.[2]} ${m?.[3]}`)
          .sort();
      try {
        const all = await s.call("type_check", { path: repo });
        const entries = (r: Record<string, unknown>) =>
          (r.checkers as { checker: string; path: string }[]).map((c) => `${c.checker} ${c.path}`).sort();
        expect(entries(all)).toEqual([
          "mypy .",
          "mypy packages/a",
          "mypy packages/b",
          "pyright .",
          "pyright packages/a",
          "pyright packages/b",
          "ty packages/d",
        ]);
        const expected = [
          ...rootByHand("mypy", repo, mypyBin),
          ...rootByHand("pyright", repo, mypyBin),
          ...OWN.flatMap((p) =>
            (p === "packages/d" ? (["ty"] as const) : (["mypy", "pyright"] as const)).flatMap((t) =>
              byHand(t, repo, p, mypyBin),
            ),
          ),
        ].sort();
        expect(shown(all)).toEqual(expected);
        expect(all).toMatchObject({ success: true, passed: false, issue_count: expected.length });

        // ty named: at the root (leaving the nested projects out) and at each of them, each with its own config.
        const ty = await s.call("type_check", { path: repo, checker: "ty" });
        expect(entries(ty)).toEqual(["ty .", "ty packages/a", "ty packages/b", "ty packages/d"]);
        // ty's walk at the root does not take them (its --exclude, as by hand).
        expect(ty.command).toContain(
          "--exclude ./packages/a/ --exclude ./packages/b/ --exclude ./packages/d/",
        );
        expect(shown(ty)).toEqual(
          [...rootByHand("ty", repo, mypyBin), ...OWN.flatMap((p) => byHand("ty", repo, p, mypyBin))].sort(),
        );
        expect(shown(ty)).not.toContain("packages/d/src/pkg_d/__init__.py:5 invalid-assignment");
        // A nested project asked for itself: its own settings, as before (shown from the allowed root).
        const a = await s.call("type_check", { path: path.join(repo, "packages/a"), checker: "mypy" });
        expect(shown(a)).toEqual(byHand("mypy", repo, "packages/a", mypyBin));

        // Served from the cache while nothing changed; an edit of a nested config is a new run.
        await s.call("type_check", { path: repo, checker: "mypy" });
        const again = await s.call("type_check", { path: repo, checker: "mypy" });
        expect(again.checkers).toHaveLength(4);
        expect((again.checkers as { cached?: string }[]).every((c) => c.cached !== undefined)).toBe(true);
        const bConfig = path.join(repo, "packages/b/pyproject.toml");
        fs.writeFileSync(
          bConfig,
          fs.readFileSync(bConfig, "utf8").replace('disable_error_code = ["assignment"]', ""),
        );
        const edited = await s.call("type_check", { path: repo, checker: "mypy" });
        expect(shown(edited)).toContain("packages/b/src/pkg_b/__init__.py:5 assignment");
        expect(shown(edited)).toEqual(
          [
            ...rootByHand("mypy", repo, mypyBin),
            ...OWN.flatMap((p) => byHand("mypy", repo, p, mypyBin)),
          ].sort(),
        );
        // packages/b without any type-checker config of its own: the root's run takes it again, once.
        fs.writeFileSync(
          bConfig,
          fs
            .readFileSync(bConfig, "utf8")
            .replace(/\[tool\.mypy\]\n/, "")
            .replace(/\[tool\.pyright\]\nreportAssignmentType = false\n/, ""),
        );
        const covered = await s.call("type_check", { path: repo, checker: "mypy" });
        expect(entries(covered)).toEqual(["mypy .", "mypy packages/a", "mypy packages/d"]);
        const rootNow = byHand("mypy", repo, ".", mypyBin, ["packages/a", "packages/d"]);
        expect(rootNow).toContain("packages/b/src/pkg_b/__init__.py:5 assignment");
        expect(shown(covered)).toEqual(
          [
            ...rootNow,
            ...["packages/a", "packages/d"].flatMap((p) => byHand("mypy", repo, p, mypyBin)),
          ].sort(),
        );
      } finally {
        await s.close();
      }
    },
    300_000,
  );

  it.skipIf(absent(TOOLS_VENV_BIN, "ruff"))(
    "ruff: lint at the root applies each nested project's ruff config, as `ruff check .` there",
    async () => {
      const repo = monorepo();
      const ruff = path.join(TOOLS_VENV_BIN, "ruff");
      const out = stdoutOf(ruff, ["check", "--output-format", "concise", "."], repo);
      const direct = out
        .split("\n")
        .map((l) => /^(.+?):(\d+):\d+: (\w+)/.exec(l))
        .filter((m) => m !== null)
        .map((m) => `${m[1]}:${m[2]} ${m[3]}`)
        .sort();
      // packages/a selects ANN, packages/b E501 at 10 columns; the root's E and F find nothing.
      expect(direct).toEqual([
        "packages/a/src/pkg_a/__init__.py:1 ANN001",
        "packages/a/src/pkg_a/__init__.py:1 ANN201",
        "packages/b/src/pkg_b/__init__.py:1 E501",
        "packages/b/src/pkg_b/__init__.py:2 E501",
        "packages/b/src/pkg_b/__init__.py:5 E501",
        "packages/b/tests/conftest.py:1 E501",
      ]);
      // The ruff CLI on PATH, then the embedded ruff (no ruff on PATH).
      for (const PATH of [pathWith(MYPYS[0] as string), "/usr/bin:/bin"]) {
        const s = await connectStdio({ args: ["--allowed-paths", repo], cwd: repo, env: { PATH } });
        try {
          const r = await s.call("lint", { path: repo });
          const found = (r.issues as string[])
            .map((l) => /^(.+?):(\d+):\d+: (\w+)/.exec(l))
            .map((m) => `${m?.[1]}:${m?.[2]} ${m?.[3]}`)
            .sort();
          expect(found, PATH).toEqual(direct);
        } finally {
          await s.close();
        }
      }
    },
    120_000,
  );

  it.skipIf(absent(MYPYS[0] as string, "mypy"))(
    "fix_all verifies with the checker at each nested project too, with its own configuration",
    async () => {
      const repo = monorepo();
      const mypyBin = MYPYS[0] as string;
      const s = await connectStdio({
        args: ["--allowed-paths", repo],
        cwd: repo,
        env: { PATH: pathWith(mypyBin) },
      });
      try {
        const r = await s.call("fix_all", { path: repo, checker: "mypy" });
        const typeCheck = r.type_check as { issues: string[]; notes: string[] };
        const shown = typeCheck.issues
          .map((l) => /^(.+?):(\d+):\d+: (\S+)/.exec(l))
          .map((m) => `${m?.[1]}:${m?.[2]} ${m?.[3]}`);
        // packages/a's strict settings apply only in its own run (the root's run leaves it out).
        for (const p of ["packages/a", "packages/b"])
          for (const f of byHand("mypy", repo, p, mypyBin)) expect(shown, p).toContain(f);
        expect(shown).toContain("packages/a/src/pkg_a/__init__.py:1 no-untyped-def");
        for (const f of rootByHand("mypy", repo, mypyBin)) expect(shown).toContain(f);
        expect(typeCheck.notes).toContainEqual(
          "mypy ran at ., packages/a, packages/b, packages/d (each nested project with its own configuration)",
        );
        expect(r).toMatchObject({ rolled_back: false, transaction: { verification: { passed: true } } });
      } finally {
        await s.close();
      }
    },
    300_000,
  );
});
