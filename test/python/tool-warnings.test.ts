/**
 * Warnings the tools print on stderr (ruff's removed-rule and deprecation notices, black's Python
 * deprecation warnings) reach the result's `notes`, not only its raw `output`.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseToolWarnings } from "../../src/adapters/python/tool-warnings.js";
import { connectStdio, FIXTURES } from "../helpers/server.js";
import { copyFixture, missing, TOOLS_VENV_BIN } from "../helpers/tools.js";

const LINT_PROJECT = path.join(FIXTURES, "python", "lint-project");

/** stderr captured from ruff 0.17.6 and black 23.1.0 on such configs. */
const RUFF_STDERR = [
  "warning: The `ignore-init-module-imports` option is deprecated and will be removed in a future release.",
  "warning: The following rules have been removed and ignoring them has no effect:",
  "    - ANN101",
  "    - UP038",
  "",
].join("\n");
const BLACK_STDERR = [
  "/usr/lib/python3/dist-packages/black/mode.py:186: Deprecated: `experimental string processing` has been included in `preview` and deprecated. Use `preview` instead.",
  "  warn(",
  "All done! ✨ 🍰 ✨",
  "3 files would be left unchanged.",
].join("\n");

describe("tool warnings", () => {
  it("are parsed from captured stderr, continuation lines joined", () => {
    expect(parseToolWarnings(RUFF_STDERR, "ruff")).toEqual([
      "ruff: warning: The `ignore-init-module-imports` option is deprecated and will be removed in a future release.",
      "ruff: warning: The following rules have been removed and ignoring them has no effect: - ANN101 - UP038",
    ]);
    expect(parseToolWarnings(BLACK_STDERR, "black")).toEqual([
      "black: Deprecated: `experimental string processing` has been included in `preview` and deprecated. Use `preview` instead.",
    ]);
    expect(parseToolWarnings("All done!\n1 file would be reformatted.\n", "black")).toEqual([]);
  });

  async function serve(dir: string) {
    return connectStdio({
      args: ["--allowed-paths", dir, "--rate-limit", "false"],
      cwd: dir,
      env: { PATH: `${TOOLS_VENV_BIN}:/usr/bin:/bin`, VIRTUAL_ENV: undefined },
    });
  }

  it.skipIf(missing("ruff", [TOOLS_VENV_BIN]))(
    "ruff's removed-rule notice is in lint and format_check notes",
    async () => {
      const dir = copyFixture(LINT_PROJECT);
      const file = path.join(dir, "pyproject.toml");
      fs.writeFileSync(
        file,
        fs
          .readFileSync(file, "utf8")
          .replace('extend-select = ["E711"]', 'extend-select = ["E711"]\nignore = ["ANN101"]'),
      );
      const s = await serve(dir);
      try {
        const notice =
          "ruff: warning: The following rules have been removed and ignoring them has no effect: - ANN101";
        const lint = await s.call("lint", { path: "." });
        expect(lint.success).toBe(true);
        expect(lint.notes).toContain(notice);
        const format = await s.call("format_check", { path: "." });
        expect(format.notes).toContain(notice);
      } finally {
        await s.close();
      }
    },
  );

  it.skipIf(missing("black"))("black's deprecation warning is in format_check notes", async () => {
    const dir = copyFixture(LINT_PROJECT);
    fs.appendFileSync(
      path.join(dir, "pyproject.toml"),
      "\n[tool.black]\nexperimental-string-processing = true\n",
    );
    const s = await serve(dir);
    try {
      const r = await s.call("format_check", { path: ".", formatter: "black" });
      expect(r.success).toBe(true);
      expect(r.notes).toContainEqual(
        expect.stringMatching(/^black: Deprecated: `experimental string processing`/),
      );
    } finally {
      await s.close();
    }
  });
});
