/**
 * The embedded ruff (@astral-sh/ruff-wasm-nodejs): loaded once per server and kept in-process, so a lint
 * or format of one file costs milliseconds instead of a process start. It behaves like the CLI: the
 * project's settings, the CLI's file discovery, the same `path:line:col: CODE message` lines.
 */
import path from "node:path";
import { createRequire } from "node:module";
import picomatch from "picomatch";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { readTextIn } from "../../paths/safe-fs.js";
import { discoverPythonFiles } from "./python-files.js";
import { loadRuffSettings, type RuffSettings } from "./ruff-settings.js";

type RuffModule = typeof import("@astral-sh/ruff-wasm-nodejs");
type Workspace = InstanceType<RuffModule["Workspace"]>;

export interface WasmPosition {
  row: number;
  column: number;
}

export interface WasmEdit {
  content: string | null;
  location: WasmPosition;
  end_location: WasmPosition;
}

export interface WasmDiagnostic {
  code: string | null;
  message: string;
  start_location: WasmPosition;
  fix: { message: string | null; edits: WasmEdit[] } | null;
}

export interface EmbeddedLintResult {
  /** `path:line:col: CODE message` lines, sorted by file, line, column. */
  issues: string[];
  files: string[];
  settingsSource: string | undefined;
}

export interface EmbeddedFormatResult {
  files: string[];
  /** Files whose formatted text differs, with both texts. */
  changed: { file: string; before: string; after: string }[];
  settingsSource: string | undefined;
}

const require = createRequire(import.meta.url);

export class EmbeddedRuff {
  private module: RuffModule | undefined;
  private readonly workspaces = new Map<string, Workspace>();

  /** The wasm module, loaded on first use (it is the slow part: about 100 ms). */
  private load(): RuffModule {
    this.module ??= require("@astral-sh/ruff-wasm-nodejs") as RuffModule;
    return this.module;
  }

  close(): void {
    for (const ws of this.workspaces.values()) ws.free();
    this.workspaces.clear();
  }

  version(): string {
    return this.load().Workspace.version();
  }

  /** A Workspace per distinct settings object, reused across calls. */
  private workspace(settings: RuffSettings): Workspace {
    const key = JSON.stringify(settings.workspaceOptions);
    let ws = this.workspaces.get(key);
    if (!ws) {
      const ruff = this.load();
      try {
        // Utf32 columns are code points, which is what the ruff CLI prints.
        ws = new ruff.Workspace(settings.workspaceOptions, ruff.PositionEncoding.Utf32);
      } catch (err) {
        throw new ToolError(
          "tool_error",
          `ruff settings${settings.source ? ` in ${settings.source}` : ""} are invalid: ${String(err)}`,
        );
      }
      if (this.workspaces.size >= 32) this.workspaces.clear();
      this.workspaces.set(key, ws);
    }
    return ws;
  }

  lint(target: string, root: string, displayBase: string, configFile?: string): EmbeddedLintResult {
    const settings = loadRuffSettings(target, root, configFile);
    const files = discoverPythonFiles(target, settings, root);
    const rows: { file: string; row: number; col: number; text: string }[] = [];
    for (const file of files) {
      const rel = displayPath(file, displayBase);
      for (const d of this.check(settings, file, readTextIn(root, file))) {
        const code = d.code ?? "invalid-syntax";
        const { row, column } = d.start_location;
        const label = /^[A-Z]+[0-9]+$/.test(code) ? code : `${code}:`;
        rows.push({ file: rel, row, col: column, text: `${rel}:${row}:${column}: ${label} ${d.message}` });
      }
    }
    rows.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.row - b.row || a.col - b.col));
    return { issues: rows.map((r) => r.text), files, settingsSource: settings.source };
  }

  /** Diagnostics (with fixes) of `source` as the content of `file`, the file's per-file ignores applied. */
  check(settings: RuffSettings, file: string, source: string): WasmDiagnostic[] {
    const relToConfig = path.relative(settings.baseDir, file);
    const ignored = Object.entries(settings.perFileIgnores)
      .filter(([glob]) => picomatch(glob, { dot: true, basename: !glob.includes("/") })(relToConfig))
      .flatMap(([, codes]) => codes);
    const diagnostics = this.workspace(settings).check(source) as WasmDiagnostic[];
    return diagnostics.filter((d) => {
      const code = d.code ?? "invalid-syntax";
      return !ignored.some((prefix) => prefix === "ALL" || code.startsWith(prefix));
    });
  }

  /** Formats every file in memory; a file that cannot be parsed is a tool_error naming it. */
  format(target: string, root: string, configFile?: string): EmbeddedFormatResult {
    const settings = loadRuffSettings(target, root, configFile);
    const ws = this.workspace(settings);
    const files = discoverPythonFiles(target, settings, root);
    const changed: EmbeddedFormatResult["changed"] = [];
    const failures: string[] = [];
    for (const file of files) {
      const before = readTextIn(root, file);
      let after: string;
      try {
        after = ws.format(before);
      } catch (err) {
        failures.push(`${file}: ${String(err).replace(/^Error: /, "")}`);
        continue;
      }
      if (after !== before) changed.push({ file, before, after });
    }
    if (failures.length)
      throw new ToolError("tool_error", `ruff (embedded) could not format ${failures.length} file(s)`, {
        output: failures.join("\n"),
      });
    return { files, changed, settingsSource: settings.source };
  }
}

/** Paths relative to the server's working directory when inside it, as the CLI prints them. */
export function displayPath(file: string, base: string): string {
  const rel = path.relative(base, file);
  return rel && isWithin(base, file) ? rel : file;
}

export const EMBEDDED_RUFF_SERVICE = "ruff-embedded";
