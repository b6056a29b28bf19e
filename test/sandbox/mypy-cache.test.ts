/**
 * mypy's incremental cache in the sandbox: it lives in the server's cache folder, under the $HOME the sandbox
 * hides, so a sandboxed mypy used to start cold on every run (4.96× slower in bench/sandbox.bench.mjs). The
 * folder of that one project is now bound read-write for mypy and its daemon, and nothing else of $HOME is.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";

/** Every file under dir, relative. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(dir, f)).isFile(),
  );
}

// Cold runs only: the daemon keeps its state in memory and writes no incremental cache of its own.
describe("a sandboxed mypy run cold", () => {
  const warm = false;
  it.skipIf(missing("mypy"))(
    "fills its cache in the server's cache folder and writes nothing else",
    async () => {
      const project = tempDir("mcq-mypy-cache-");
      fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "p"\n');
      fs.writeFileSync(path.join(project, "app.py"), 'def f(x: int) -> int:\n    return x\n\nf("a")\n');
      const xdg = tempDir("mcq-mypy-xdg-");
      const before = filesUnder(project);
      const s = await connectStdio({
        args: ["--sandbox", "required", "--warm-checkers", String(warm), "--allowed-paths", project],
        cwd: project,
        env: { XDG_CACHE_HOME: xdg, VIRTUAL_ENV: undefined },
      });
      try {
        const r = await s.call("type_check", { path: ".", checker: "mypy" });
        expect(r.success, JSON.stringify(r).slice(0, 2000)).toBe(true);
        expect(r.issue_count, JSON.stringify(r).slice(0, 2000)).toBe(1);
      } finally {
        await s.close();
      }
      const cached = filesUnder(path.join(xdg, "mcp-code-quality", "mypy"));
      expect(
        cached.some((f) => f.endsWith("builtins.meta.json")),
        cached.join(", "),
      ).toBe(true);
      // The project stays as it was: the read-only view holds for mypy.
      expect(filesUnder(project).filter((f) => !f.startsWith(".mcp-cache"))).toEqual(before);
    },
  );
});
