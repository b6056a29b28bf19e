/**
 * A Go module the go command cannot load (viper's `remote/`: a nested module whose go.mod needs `go mod
 * tidy`): staticcheck prints `warning: "./..." matched no packages` and exits 0, and lint called that a pass
 * on code it never read; gosec scans no file. Both are now failures that say why, in the go command's
 * words (and that staticcheck exited 0, first: not "(exit 0)" after the go command's words). Made here offline: the nested module requires its parent (through `replace ../`), whose go.mod
 * asks for a newer Go than the nested one's, so the nested go.mod needs updating. The real tools.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { PATH_WITH_TOOLS } from "../helpers/check.js";

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

const byHand = (program: string, args: string[], cwd: string) =>
  spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: PATH_WITH_TOOLS, GOTOOLCHAIN: "local", GOFLAGS: "" },
  });

describe.skipIf(missing("go") || missing("staticcheck", [TOOLS_GO_BIN]))(
  "Go tools on a module the go command cannot load",
  () => {
    const root = tempDir("mcq-go-load-");
    const sub = path.join(root, "sub");
    const empty = path.join(root, "empty");
    write(path.join(root, "go.mod"), "module example.com/top\n\ngo 1.24\n");
    write(path.join(root, "top.go"), "package top\n\nfunc F() int { return 1 }\n");
    write(
      path.join(sub, "go.mod"),
      "module example.com/top/sub\n\ngo 1.22\n\nreplace example.com/top => ../\n\nrequire example.com/top v0.0.0\n",
    );
    write(path.join(sub, "sub.go"), 'package sub\n\nimport "example.com/top"\n\nvar X = top.F()\n');
    // A module without a Go file: nothing to load, and nothing wrong.
    write(path.join(empty, "go.mod"), "module example.com/empty\n\ngo 1.22\n");
    let s: Connected;
    beforeAll(async () => {
      s = await connectStdio({ args: ["--allowed-paths", root], env: { PATH: PATH_WITH_TOOLS } });
    });
    afterAll(() => s?.close());

    it("by hand: staticcheck matches no package and exits 0; go list says why", () => {
      const sc = byHand("staticcheck", ["./..."], sub);
      expect(sc.status).toBe(0);
      expect(sc.stderr).toContain('warning: "./..." matched no packages');
      const list = byHand("go", ["list", "./..."], sub);
      expect(list.status).toBe(1);
      expect(list.stderr).toContain("go: updates to go.mod needed");
    });

    it("lint with staticcheck fails, in the go command's words, where it passed", async () => {
      const r = await s.call("lint", { path: sub, linter: "staticcheck" });
      expect(r.success).toBe(false);
      // It exited 0: said first, not as "(exit 0)" after the go command's words, where it read as theirs.
      expect(r.error).toBe(
        "staticcheck exited 0 but loaded no package of ./..., which has Go files: go: updates to go.mod needed; to update it: go mod tidy; see output",
      );
    });

    it("security_scan with gosec says why it scanned no file", async () => {
      if (missing("gosec", [TOOLS_GO_BIN])) return;
      const r = await s.call("security_scan", { path: sub });
      expect(JSON.stringify(r)).toContain(
        "gosec scanned no file of ./..., which has Go files (it could not load the packages: go: updates to go.mod needed; to update it: go mod tidy)",
      );
    });

    it("a module without Go files still passes", async () => {
      const none = await s.call("lint", { path: empty, linter: "staticcheck" });
      expect(none.success, JSON.stringify(none)).toBe(true);
      expect(byHand("staticcheck", ["./..."], empty).status).toBe(0);
    });
  },
);
