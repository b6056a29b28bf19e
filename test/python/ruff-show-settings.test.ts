/**
 * explain_rules reads ruff's resolved settings from `ruff check --show-settings`; a setting printed over
 * several lines (a table, a list of tables) was cut to its first character: click's own
 * `aliases = { typing = t }` read `'{'`. The real ruff's output, parsed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseShowSettings } from "../../src/adapters/python/ruff-explain.js";
import { tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const RUFF = path.join(TOOLS_VENV_BIN, "ruff");

describe.skipIf(!fs.existsSync(RUFF))("ruff's --show-settings, parsed", () => {
  it("keeps a setting printed over several lines whole", () => {
    const dir = tempDir("mcq-ruff-settings-");
    fs.writeFileSync(
      path.join(dir, "pyproject.toml"),
      '[tool.ruff.lint]\nselect = ["ICN", "I"]\n[tool.ruff.lint.flake8-import-conventions.aliases]\ntyping = "t"\n',
    );
    fs.writeFileSync(path.join(dir, "a.py"), "import typing as t\n");
    const out = spawnSync(RUFF, ["check", "--show-settings", "a.py"], { cwd: dir, encoding: "utf8" }).stdout;
    expect(out).toContain("linter.flake8_import_conventions.aliases = {\n\ttyping = t,\n}");
    const settings = parseShowSettings(out);
    expect(settings.options.get("flake8_import_conventions")?.aliases).toBe("{ typing = t }");
    expect(settings.options.get("flake8_import_conventions")?.banned_aliases).toBe("{}");
    expect(settings.options.get("isort")?.section_order).toMatch(/^\[ known \{ type = future \}, .* \]$/);
    expect(settings.enabled.has("ICN001")).toBe(true);
  });
});
