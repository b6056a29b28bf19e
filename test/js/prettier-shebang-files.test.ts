/**
 * Files Prettier's CLI takes by their `#!` line (tj/commander.js: `examples/pizza`, `#!/usr/bin/env node`,
 * 15 such files): `prettier --check .` checks them, and format_check and check walked only the extensions
 * and file names Prettier knows, so a misformatted one passed. The walk now reads the `#!` line of a file
 * without a dot in its name, as Prettier does. The real Prettier CLI (bundled) and format_check.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { shebangInterpreter } from "../../src/adapters/js/prettier-files.js";
import { runCheck } from "../helpers/check.js";
import { connectStdio, REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const PRETTIER = path.join(REPO_ROOT, "node_modules", "prettier", "bin", "prettier.cjs");

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe("Prettier and files known by their #! line", () => {
  it("reads the interpreter as Prettier does", () => {
    expect(shebangInterpreter("#!/usr/bin/env node")).toBe("node");
    expect(shebangInterpreter("#!/usr/bin/env  -S node --flag")).toBe("-S");
    expect(shebangInterpreter("#!/usr/local/bin/node")).toBe("node");
    expect(shebangInterpreter("#!/bin/sh")).toBe("sh");
    expect(shebangInterpreter("// not one")).toBeUndefined();
  });

  it("checks what prettier --check . checks, and no more", async () => {
    const dir = tempDir("mcq-prettier-shebang-");
    write(path.join(dir, ".prettierrc.json"), "{}\n");
    write(
      path.join(dir, "package.json"),
      `${JSON.stringify({ name: "p", devDependencies: { prettier: "*" } }, null, 2)}\n`,
    );
    write(path.join(dir, "src", "ok.js"), "export const a = 1;\n");
    // Misformatted, each: a node script by its #! line; a shell script Prettier has no parser for; a node
    // script with a dot in its name (Prettier reads no #! then); a README-like file without one.
    write(path.join(dir, "bin", "tool"), "#!/usr/bin/env node\nconst  a =  1;\nconsole.log(a)\n");
    write(path.join(dir, "bin", "run"), "#!/bin/sh\necho   hi\n");
    write(path.join(dir, "bin", "tool.v2"), "#!/usr/bin/env node\nconst  b =  2;\n");
    write(path.join(dir, "NOTES"), "const  c =  3;\n");
    // Without colours: Prettier's picocolors turns them on when CI is set, as in CI.
    const hand = spawnSync(process.execPath, [PRETTIER, "--check", "."], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined },
    });
    const warned = [...`${hand.stdout}${hand.stderr}`.matchAll(/^\[warn\] (\S+)$/gm)].map((m) => m[1]).sort();
    expect(warned).toEqual(["bin/tool"]);
    const s = await connectStdio({ args: ["--allowed-paths", dir] });
    try {
      const r = await s.call("format_check", { path: dir });
      expect(r).toMatchObject({ success: true, formatted: false, unformatted_files: warned });
    } finally {
      await s.close();
    }
    const report = (await runCheck([".", "--only", "prettier"], { cwd: dir })).stdout;
    expect(report).toContain(
      "\nbin/tool\n  2:1  warning  format  prettier would reformat this file  [prettier]\n",
    );
  }, 60_000);
});
