/**
 * The embedded ruff (@astral-sh/ruff-wasm-nodejs): loaded once per server and kept in-process, so a lint
 * or format of one file costs milliseconds instead of a process start. It behaves like the CLI: the
 * project's settings, the CLI's file discovery, the same `path:line:col: CODE message` lines.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import picomatch from "picomatch";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { byPosition, type Finding } from "../../findings/model.js";
import { discoverPythonFiles } from "./python-files.js";
import { ruffEdits } from "./ruff-cli.js";
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
  end_location?: WasmPosition;
  fix: { message: string | null; edits: WasmEdit[] } | null;
}

export interface EmbeddedLintResult {
  /** Findings sorted by file, line, column, as the CLI prints them. */
  findings: Finding[];
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

  lint(target: string, root: string, configFile?: string): EmbeddedLintResult {
    const settings = loadRuffSettings(target, root, configFile);
    const files = discoverPythonFiles(target, settings, root);
    const findings: Finding[] = [];
    for (const file of files)
      for (const d of this.check(settings, file, fs.readFileSync(file, "utf8")))
        findings.push(wasmFinding(file, d));
    findings.sort(byPosition);
    return { findings, files, settingsSource: settings.source };
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
      const before = fs.readFileSync(file, "utf8");
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

/**
 * A wasm diagnostic as a finding. The embedded build does not say whether a fix is safe, so its
 * corrections are marked unsafe (never applied as safe on its word).
 */
export function wasmFinding(file: string, d: WasmDiagnostic): Finding {
  const code = d.code ?? "invalid-syntax";
  const f: Finding = {
    tool: "ruff",
    file,
    line: d.start_location.row,
    column: d.start_location.column,
    end_line: d.end_location?.row,
    end_column: d.end_location?.column,
    rule_id: code,
    severity: "error",
    message: d.message,
    correctable: Boolean(d.fix?.edits.length),
  };
  if (d.fix?.edits.length)
    f.correction = { safe: false, description: d.fix.message ?? undefined, edits: ruffEdits(d.fix.edits) };
  return f;
}

/** Paths relative to the server's working directory when inside it, as the CLI prints them. */
export function displayPath(file: string, base: string): string {
  const rel = path.relative(base, file);
  return rel && isWithin(base, file) ? rel : file;
}

export const EMBEDDED_RUFF_SERVICE = "ruff-embedded";
