/**
 * golangci-lint's config loads Go plugins (`linters.settings.custom.<name>.path`: a `.so` it opens, whose
 * constructors run as it opens it). A red team's `.golangci.yml` spelled the keys `Linters:` / `Settings:` /
 * `Custom:`: the server's refusal read them case-sensitively, golangci-lint (viper) does not, and the plugin
 * ran with GOCACHE and GOMODCACHE read-write; a second one appended a panic to a module in GOMODCACHE, and
 * another project's run_tests failed. Now the config is read as golangci-lint reads it (keys in any case, YAML
 * merge keys, TOML, JSON), and whatever the server cannot read (a `.golangci.properties`, which golangci-lint
 * also takes) runs contained as the project's code: Go's shared caches read-only, filled first by `go mod
 * download`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A file GOPROXY holding example.com/mcqdep v0.1.0 (`Answer() == 42`). */
function fileProxy(dir: string): void {
  const at = path.join(dir, "example.com", "mcqdep", "@v");
  write(path.join(at, "list"), "v0.1.0\n");
  write(path.join(at, "v0.1.0.info"), '{"Version":"v0.1.0","Time":"2024-01-01T00:00:00Z"}\n');
  const mod = "module example.com/mcqdep\n\ngo 1.22\n";
  write(path.join(at, "v0.1.0.mod"), mod);
  const script = [
    "import sys, zipfile",
    "z = zipfile.ZipFile(sys.argv[1], 'w')",
    "p = 'example.com/mcqdep@v0.1.0/'",
    "z.writestr(p + 'go.mod', sys.argv[2])",
    "z.writestr(p + 'dep.go', 'package mcqdep\\n\\nfunc Answer() int { return 42 }\\n')",
    "z.close()",
  ].join("\n");
  const made = spawnSync("python3", ["-c", script, path.join(at, "v0.1.0.zip"), mod], { encoding: "utf8" });
  expect(made.status, made.stderr).toBe(0);
}

function goModule(dir: string, name: string, extra: Record<string, string> = {}): void {
  write(
    path.join(dir, "go.mod"),
    `module example.com/${name}\n\ngo 1.22\n\nrequire example.com/mcqdep v0.1.0\n`,
  );
  write(
    path.join(dir, `${name}.go`),
    `package ${name}\n\nimport "example.com/mcqdep"\n\nfunc F() int { return mcqdep.Answer() }\n`,
  );
  for (const [rel, text] of Object.entries(extra)) write(path.join(dir, rel), text);
}

/**
 * A shared object whose constructor runs as golangci-lint opens it (before Go's plugin checks): it appends a
 * panic to mcqdep in GOMODCACHE and drops a file in GOCACHE, and says on stderr what happened.
 */
const INJECTING_C = `#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void say(const char *what, FILE *f) {
  fprintf(stderr, "INJECT %s %s\\n", what, f ? "written" : strerror(errno));
}

__attribute__((constructor)) static void inject(void) {
  char p[4096];
  const char *mc = getenv("GOMODCACHE"), *gc = getenv("GOCACHE");
  snprintf(p, sizeof p, "%s/example.com/mcqdep@v0.1.0", mc ? mc : "");
  chmod(p, 0755);
  snprintf(p, sizeof p, "%s/example.com/mcqdep@v0.1.0/dep.go", mc ? mc : "");
  chmod(p, 0644);
  FILE *f = fopen(p, "a");
  say("modcache", f);
  if (f) { fputs("\\nfunc init() { panic(\\"INJECTED\\") }\\n", f); fclose(f); }
  snprintf(p, sizeof p, "%s/INJECTED", gc ? gc : "");
  f = fopen(p, "w");
  say("gocache", f);
  if (f) fclose(f);
}
`;

const GOLANGCI = path.join(TOOLS_GO_BIN, "golangci-lint");
const PLUGIN_ERROR = (file: string) =>
  `golangci-lint was not run: ${file} loads Go plugins (linters.settings.custom: zzpwn), code the server does not run; run golangci-lint yourself`;

describe.skipIf(missing("go") || missing("gcc") || missing("golangci-lint", [TOOLS_GO_BIN]))(
  "golangci-lint's plugins",
  () => {
    const root = tempDir("mcq-golangci-plug-");
    const proxy = tempDir("mcq-goproxy-");
    const modcache = tempDir("mcq-gomodcache-");
    const gocache = tempDir("mcq-gocache-");
    let s: Connected;

    beforeAll(async () => {
      expect(probeSandbox()).toMatchObject({ available: true });
      fileProxy(proxy);
      const env = {
        ...process.env,
        GOPROXY: `file://${proxy}`,
        GOSUMDB: "off",
        GOFLAGS: "-mod=mod",
        GOMODCACHE: modcache,
        GOCACHE: gocache,
        GOTOOLCHAIN: "local",
      };
      const configs: Record<string, [string, string]> = {
        upper: [
          ".golangci.yml",
          'version: "2"\nLinters:\n  enable: [zzpwn]\n  Settings:\n    Custom:\n      zzpwn:\n        path: evil.so\n',
        ],
        merge: [
          ".golangci.yml",
          'version: "2"\nx: &plugins\n  custom:\n    zzpwn: {path: evil.so}\nlinters:\n  settings:\n    <<: *plugins\n',
        ],
        toml: [".golangci.toml", 'Version = "2"\n[Linters.Settings.Custom.zzpwn]\nPath = "evil.so"\n'],
        json: [
          ".golangci.json",
          '{"version": "2", "LINTERS": {"settings": {"Custom": {"zzpwn": {"path": "evil.so", "Type": "goplugin"}}}}}',
        ],
      };
      for (const [name, [file, text]] of Object.entries(configs))
        goModule(path.join(root, name), name, { [file]: text });
      // A config format the server does not read, which golangci-lint takes (and loads plugins from).
      goModule(path.join(root, "props"), "props", {
        ".golangci.properties": "version=2\nlinters.settings.custom.zzpwn.path=evil.so\n",
        "evil.c": INJECTING_C,
      });
      goModule(path.join(root, "victim"), "victim", { ".golangci.yml": 'version: "2"\n' });
      const cc = spawnSync(
        "gcc",
        ["-shared", "-fPIC", "-o", path.join(root, "props", "evil.so"), path.join(root, "props", "evil.c")],
        { encoding: "utf8" },
      );
      expect(cc.status, cc.stderr).toBe(0);
      // go.sum as a project has it; then fresh caches.
      for (const m of [...Object.keys(configs), "props", "victim"]) {
        const tidy = spawnSync("go", ["mod", "tidy"], { cwd: path.join(root, m), env, encoding: "utf8" });
        expect(tidy.status, tidy.stderr).toBe(0);
      }
      spawnSync("go", ["clean", "-modcache"], { env });
      s = await connectStdio({
        cwd: root,
        args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", `${root},${proxy}`],
        env: {
          GOPROXY: env.GOPROXY,
          GOSUMDB: "off",
          GOMODCACHE: modcache,
          GOCACHE: gocache,
          PATH: `${path.dirname(GOLANGCI)}:${process.env.PATH ?? ""}`,
        },
      });
    }, 120_000);
    afterAll(() => s?.close());

    it.each([
      ["upper", ".golangci.yml"],
      ["merge", ".golangci.yml"],
      ["toml", ".golangci.toml"],
      ["json", ".golangci.json"],
    ])(
      "a plugin under keys in any case, in any format golangci-lint reads (%s), is refused",
      async (name, file) => {
        const r = await s.call("lint", { path: path.join(root, name), linter: "golangci-lint" });
        expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({
          success: false,
          error_type: "tool_error",
        });
        expect(r.error).toBe(PLUGIN_ERROR(file));
      },
    );

    it("a plugin the server cannot see runs as the project's code: the shared Go caches stay as they were", async () => {
      const attack = await s.call("lint", { path: path.join(root, "props"), linter: "golangci-lint" });
      const said = JSON.stringify(attack);
      // golangci-lint found the config, opened the object, and its constructor could write neither cache.
      expect(said, said.slice(0, 2000)).toContain("INJECT modcache");
      expect(said).not.toContain("written");
      expect(said).toMatch(/INJECT modcache (Read-only file system|Permission denied)/);
      expect(said).toMatch(/INJECT gocache Read-only file system/);
      // The fill step put the module in place; nothing of the plugin's reached it or the build cache.
      const dep = fs.readFileSync(path.join(modcache, "example.com", "mcqdep@v0.1.0", "dep.go"), "utf8");
      expect(dep).not.toContain("INJECTED");
      expect(fs.existsSync(path.join(gocache, "INJECTED"))).toBe(false);
      const victim = await s.call("lint", { path: path.join(root, "victim"), linter: "golangci-lint" });
      expect(victim, JSON.stringify(victim).slice(0, 1500)).toMatchObject({ success: true, passed: true });
    });
  },
);
