/**
 * The tools' own caches in the sandbox. $HOME is an empty tmpfs inside, so a cache that is not bound lives
 * and dies with one run: staticcheck's ($XDG_CACHE_HOME/staticcheck) was never bound and every warm
 * staticcheck call redid the whole analysis (2.4 s against 0.17 s for the CLI on a one-file module), and a
 * declared cache that did not exist yet (go's build cache on a new machine) was left out, so no run ever
 * filled it. Go's own settings file (`go env -w`) was hidden too, so go ran without the user's GOFLAGS.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGoEnvFile } from "../../src/exec/sandbox/host.js";
import { projectKey } from "../../src/exec/sandbox/plan.js";
import { withCaches, withLaunchTimeMounts } from "../../src/exec/sandbox/launch.js";
import type { SandboxProfile } from "../../src/exec/sandbox/profile.js";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";

const PATH_WITH_GO_TOOLS = `${TOOLS_GO_BIN}:${process.env.PATH ?? ""}`;

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(dir, f)).isFile(),
  );
}

/** The go build cache this machine already has (a new one would make go rebuild the standard library). */
function hostGoCache(): string {
  return spawnSync("go", ["env", "GOCACHE"], { encoding: "utf8" }).stdout.trim();
}

function goModule(files: Record<string, string>): string {
  const dir = tempDir("mcq-go-caches-");
  fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/caches\n\ngo 1.22\n");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const SELF_ASSIGN = "package main\n\nfunc main() {\n\tx := 1\n\tx = x\n\t_ = x\n}\n";

/** A module whose vet finding (tagged.go:7) is in a file only the build tag `mcqtag` compiles. */
function taggedModule(): string {
  return goModule({
    "main.go": "package main\n\nfunc main() {}\n",
    "tagged.go": `//go:build mcqtag\n\n${SELF_ASSIGN.replace("func main()", "func tagged()")}`,
  });
}

describe("a tool's own cache in the sandbox", () => {
  it.skipIf(missing("go") || missing("staticcheck", [TOOLS_GO_BIN]))(
    "staticcheck fills its cache on the host, made when it did not exist, and finds the same on the next call",
    async () => {
      const project = goModule({ "main.go": SELF_ASSIGN });
      const xdg = tempDir("mcq-go-caches-xdg-");
      const cache = path.join(xdg, "staticcheck");
      expect(fs.existsSync(cache)).toBe(false);
      const s = await connectStdio({
        args: ["--sandbox", "required", "--allowed-paths", project, "--result-cache", "false"],
        cwd: project,
        env: { PATH: PATH_WITH_GO_TOOLS, XDG_CACHE_HOME: xdg, GOCACHE: hostGoCache() },
      });
      try {
        const first = await s.call("lint", { path: project, linter: "staticcheck" });
        const rules = (r: Record<string, unknown>) =>
          ((r.findings ?? []) as { rule_id?: string }[]).map((f) => f.rule_id);
        expect(rules(first), JSON.stringify(first).slice(0, 1500)).toContain("SA4018");
        expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
        const filled = filesUnder(cache);
        expect(filled.length).toBeGreaterThan(0);
        const second = await s.call("lint", { path: project, linter: "staticcheck" });
        expect(rules(second)).toEqual(rules(first));
      } finally {
        await s.close();
      }
      expect(filesUnder(project).sort()).toEqual(["go.mod", "main.go"]);
    },
  );

  it.skipIf(missing("go") || missing("golangci-lint", [TOOLS_GO_BIN]))(
    "golangci-lint fills a cache of the project's own on the host (its config may load code), never the project",
    async () => {
      const project = goModule({ "main.go": SELF_ASSIGN, ".golangci.yml": 'version: "2"\n' });
      const xdg = tempDir("mcq-go-caches-xdg-");
      const shared = path.join(xdg, "golangci-lint");
      const own = path.join(xdg, "mcp-code-quality", "per-project", "golangci-lint", projectKey(project));
      const s = await connectStdio({
        args: ["--sandbox", "required", "--allowed-paths", project, "--result-cache", "false"],
        cwd: project,
        env: { PATH: PATH_WITH_GO_TOOLS, XDG_CACHE_HOME: xdg, GOCACHE: hostGoCache() },
      });
      try {
        const r = await s.call("lint", { path: project });
        expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true });
        expect(r.command).toMatch(/^golangci-lint run /);
        expect(filesUnder(own).length).toBeGreaterThan(0);
        expect(filesUnder(shared)).toEqual([]);
      } finally {
        await s.close();
      }
      expect(filesUnder(project).sort()).toEqual([".golangci.yml", "go.mod", "main.go"]);
    },
  );

  it.skipIf(missing("go"))(
    "go runs with the user's own settings file (go env -w), as it does outside the sandbox",
    async () => {
      const project = taggedModule();
      const goenv = path.join(tempDir("mcq-go-caches-env-"), "env");
      fs.writeFileSync(goenv, "GOFLAGS=-tags=mcqtag\n");
      const env = { GOENV: goenv, GOCACHE: hostGoCache(), GOFLAGS: undefined };
      const direct = spawnSync("go", ["vet", "./..."], {
        cwd: project,
        encoding: "utf8",
        env: Object.fromEntries(
          Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined),
        ) as NodeJS.ProcessEnv,
      });
      expect(direct.stderr).toContain("tagged.go:7:2: self-assignment of x");
      const s = await connectStdio({
        args: ["--sandbox", "required", "--allowed-paths", project, "--result-cache", "false"],
        cwd: project,
        env,
      });
      try {
        const r = await s.call("lint", { path: project, linter: "govet" });
        const findings = (r.findings ?? []) as { path?: string; line?: number; message?: string }[];
        expect(
          findings.some(
            (f) => f.path === "tagged.go" && f.line === 7 && f.message === "self-assignment of x",
          ),
          JSON.stringify(r).slice(0, 1500),
        ).toBe(true);
      } finally {
        await s.close();
      }
    },
  );
});

describe("go's settings file and the result cache", () => {
  it.skipIf(missing("go"))(
    "a go env -w made while the server runs is seen by the next call, not served from the cache",
    async () => {
      const project = taggedModule();
      // Not there when the server starts: `go env -w` makes it later.
      const goenv = path.join(tempDir("mcq-go-caches-env-"), "go", "env");
      const s = await connectStdio({
        args: ["--sandbox", "required", "--allowed-paths", project, "--result-cache", "true"],
        cwd: project,
        env: {
          GOENV: goenv,
          GOCACHE: hostGoCache(),
          GOFLAGS: undefined,
          XDG_CACHE_HOME: tempDir("mcq-go-caches-xdg-"),
        },
      });
      try {
        const paths = (r: Record<string, unknown>) =>
          ((r.findings ?? []) as { path?: string }[]).map((f) => f.path);
        const before = await s.call("lint", { path: project, linter: "govet" });
        expect(paths(before), JSON.stringify(before).slice(0, 1500)).toEqual([]);
        expect((await s.call("lint", { path: project, linter: "govet" })).cached).toBe("3 of 3 files");
        const set = spawnSync("go", ["env", "-w", "GOFLAGS=-tags=mcqtag"], {
          env: { ...process.env, GOENV: goenv },
          encoding: "utf8",
        });
        expect(set.status, set.stderr).toBe(0);
        const after = await s.call("lint", { path: project, linter: "govet" });
        expect(paths(after), JSON.stringify(after).slice(0, 1500)).toEqual(["tagged.go"]);
        expect(after.cached ?? "", JSON.stringify(after).slice(0, 600)).not.toBe("3 of 3 files");
      } finally {
        await s.close();
      }
    },
  );
});

describe("withCaches", () => {
  const profile = (caches: string[], other: string[] = []): SandboxProfile => ({
    system: [],
    readOnly: [],
    readWrite: [...other, ...caches],
    home: "/home/u",
    network: false,
    hidden: [],
    cwd: "/",
    caches,
  });

  it("makes a missing cache folder owner-only and keeps it bound", () => {
    const base = tempDir("mcq-with-caches-");
    const cache = path.join(base, "a", "b", "staticcheck");
    const p = withCaches(profile([cache], [base]));
    expect(p.readWrite).toEqual([base, cache]);
    expect(fs.statSync(cache).isDirectory()).toBe(true);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
  });

  it("drops a cache it cannot make (under a file) and keeps the rest", () => {
    const base = tempDir("mcq-with-caches-");
    fs.writeFileSync(path.join(base, "file"), "x");
    const bad = path.join(base, "file", "cache");
    const good = path.join(base, "good");
    const p = withCaches(profile([bad, good], [base]));
    expect(p.readWrite).toEqual([base, good]);
    expect(p.caches).toEqual([good]);
    expect(fs.existsSync(bad)).toBe(false);
  });
});

describe("withLaunchTimeMounts", () => {
  it("binds an optional file read-only only when it exists at this launch", () => {
    const dir = tempDir("mcq-launch-mounts-");
    const file = path.join(dir, "env");
    const profile: SandboxProfile = {
      system: [],
      readOnly: ["/srv/a"],
      readWrite: [],
      home: "/home/u",
      network: false,
      hidden: [],
      cwd: "/",
      readOnlyIfPresent: [file],
    };
    expect(withLaunchTimeMounts(profile).readOnly).toEqual(["/srv/a"]);
    fs.writeFileSync(file, "GOFLAGS=-tags=x\n");
    expect(withLaunchTimeMounts(profile).readOnly).toEqual(["/srv/a", file]);
  });
});

describe("parseGoEnvFile", () => {
  it("reads it as go does: upper-case names, the last one wins, anything else skipped", () => {
    expect(
      parseGoEnvFile(
        "GOFLAGS=-buildvcs=false\n# comment\ngoproxy=lower\n\nGOCACHE=/a\nGOCACHE=/b\nNOEQUALS\nGOPRIVATE=x=y\n",
      ),
    ).toEqual({ GOFLAGS: "-buildvcs=false", GOCACHE: "/b", GOPRIVATE: "x=y" });
  });
});
