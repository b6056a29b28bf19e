/**
 * ESLint (in the warm worker) lints source files that are symlinks, and tsc compiles them, reading them
 * wherever they point. A `src/link.js` / `src/link.ts` inside the project that leads out of it must be
 * refused before the tool reads it.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

/** proj/src/ok.<ext> and proj/src/link.<ext> → outer/outside.<ext>, with a tsconfig for tsc. */
function layout(ext: "js" | "ts"): { proj: string } {
  const outer = tempDir("mcq-js-link-");
  const proj = path.join(outer, "proj");
  fs.mkdirSync(path.join(proj, "src"), { recursive: true });
  fs.writeFileSync(path.join(proj, "package.json"), '{ "name": "p", "type": "module" }\n');
  fs.writeFileSync(
    path.join(proj, "tsconfig.json"),
    '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
  );
  fs.writeFileSync(path.join(proj, "src", `ok.${ext}`), "export const a = 1;\n");
  fs.writeFileSync(
    path.join(outer, `outside.${ext}`),
    "var unused = 1;\nexport const n: number = 1;\n".replace(": number", ext === "ts" ? ": number" : ""),
  );
  fs.symlinkSync(path.join(outer, `outside.${ext}`), path.join(proj, "src", `link.${ext}`));
  return { proj };
}

describe("JS tools never read a source symlinked from outside the project", () => {
  let s: Connected | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const serve = async (proj: string) =>
    (s = await connectStdio({ args: ["--allowed-paths", proj, "--rate-limit", "false"], cwd: proj }));

  it.each([[undefined], [["src/*.js"]], [["src"]]])(
    "eslint lint (files %j) gets path_validation",
    async (files) => {
      const { proj } = layout("js");
      const r = await (
        await serve(proj)
      ).call("lint", { path: ".", linter: "eslint", ...(files ? { files } : {}) });
      expect(r.error_type).toBe("path_validation");
      expect(String(r.error)).toContain("link.js");
    },
  );

  it("tsc type_check gets path_validation", async () => {
    const { proj } = layout("ts");
    const r = await (await serve(proj)).call("type_check", { path: ".", checker: "tsc" });
    expect(r.error_type).toBe("path_validation");
    expect(String(r.error)).toContain("link.ts");
  });

  it("control: without the link, eslint and tsc run", async () => {
    const { proj } = layout("ts");
    fs.rmSync(path.join(proj, "src", "link.ts"));
    const t = await serve(proj);
    expect((await t.call("lint", { path: ".", linter: "eslint" })).success).toBe(true);
    expect((await t.call("type_check", { path: ".", checker: "tsc" })).success).toBe(true);
  });

  it("a node_modules linked from outside (a shared install) is the project's environment, not refused", async () => {
    const { proj } = layout("ts");
    fs.rmSync(path.join(proj, "src", "link.ts"));
    const shared = tempDir("mcq-shared-node-modules-");
    fs.mkdirSync(path.join(shared, "left-pad"));
    fs.symlinkSync(shared, path.join(proj, "node_modules"));
    const t = await serve(proj);
    expect(await t.call("type_check", { path: ".", checker: "tsc" })).toMatchObject({
      success: true,
      passed: true,
    });
    expect(await t.call("lint", { path: ".", linter: "eslint" })).toMatchObject({ success: true });
  });
});
