/**
 * The embedded ruff (@astral-sh/ruff-wasm-nodejs): loaded once per server, on first use, on the main
 * thread for small sources and in a worker thread for large ones (ruff-thread-host.ts), so a lint or
 * format of one file costs milliseconds instead of a process start and a large file never blocks the
 * event loop. It behaves like the CLI: the project's settings, the CLI's file
 * discovery, the same `path:line:col: CODE message` lines. Settings are read here and sent to the thread
 * as a plain options object; files are read here too, after the per-file size check.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { excludedBy, perFileApplies } from "./ruff-globs.js";
import { selectorCovers } from "./ruff-selectors.js";
import { withFileContext } from "./ruff-file-context.js";
import { ToolError } from "../../errors.js";
import { isWithin } from "../../paths/allowlist.js";
import { byPosition, type Finding } from "../../findings/model.js";
import { readTextIn } from "../../paths/safe-fs.js";
import { discoverPythonFiles } from "./python-files.js";
import { ruffEdits } from "./ruff-cli.js";
import {
  loadRuffSettings,
  ruffSettingsFor,
  workspaceOptionsFor,
  type RuffSettings,
} from "./ruff-settings.js";
import {
  RuffInputError,
  RuffSettingsError,
  RuffThreadHost,
  type RuffThreadLimits,
} from "./ruff-thread-host.js";
import type { RuffOpExtras, RuffThreadRequest } from "./ruff-thread-protocol.js";

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

/** Default per-file limit: ruff's wasm build needs about 70 bytes of memory per byte of source. */
export const DEFAULT_EMBEDDED_RUFF_MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface EmbeddedRuffOptions {
  /** Files (or inline sources) larger than this are refused with invalid_input. */
  maxFileBytes: number;
  limits?: RuffThreadLimits;
}

export interface EmbeddedCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The working directory the CLI would run in: a config file given has its paths resolved from there. */
  cwd?: string;
}

/**
 * What an embedded run goes through: the settings for `target` and its files, those of `only` (files already
 * chosen under the target, lint's `files`) or else every Python file discovered under it. One function, so
 * a cached run keys the files the uncached one would read.
 */
export function embeddedScope(
  target: string,
  root: string,
  configFile: string | undefined,
  only?: readonly string[],
  /** The CLI's working directory (see loadRuffSettings). */
  cwd?: string,
): { settings: RuffSettings; files: string[] } {
  const settings = loadRuffSettings(target, root, configFile, cwd);
  const files =
    only && !(only.length === 1 && only[0] === target)
      ? [...only]
      : discoverPythonFiles(target, settings, root);
  return { settings, files };
}

export class EmbeddedRuff {
  readonly host: RuffThreadHost;
  private readonly maxFileBytes: number;

  constructor(options: EmbeddedRuffOptions = { maxFileBytes: DEFAULT_EMBEDDED_RUFF_MAX_FILE_BYTES }) {
    this.host = new RuffThreadHost(options.limits);
    this.maxFileBytes = options.maxFileBytes;
  }

  close(): Promise<void> {
    return this.host.close();
  }

  /** The bundled ruff's version, from its package (the wasm module is not loaded for this). */
  version(): string {
    return embeddedRuffVersion();
  }

  /**
   * Reads a file for the embedded ruff, refusing one over the size limit before reading it. Synchronous:
   * the limit bounds it to a few milliseconds, and the thread pool's round trips of an asynchronous read
   * cost more than that on a busy machine.
   */
  private read(root: string, file: string): string {
    this.checkSize(file, fs.statSync(file).size);
    // Opened from the root without following links (a link swapped in after the allowlist check is refused).
    const text = readTextIn(root, file);
    this.checkSize(file, Buffer.byteLength(text));
    return text;
  }

  private checkSize(file: string, bytes: number): void {
    if (bytes > this.maxFileBytes)
      throw new ToolError(
        "invalid_input",
        `${file} is ${sizeText(bytes)}, over the embedded ruff's per-file limit of ${sizeText(this.maxFileBytes)} ` +
          "(--embedded-ruff-max-file-bytes); install the ruff CLI for larger files",
      );
  }

  async lint(
    target: string,
    root: string,
    configFile: string | undefined,
    call: EmbeddedCallOptions,
    /** Files already chosen under target (lint's `files`), instead of all of it. */
    only?: readonly string[],
  ): Promise<EmbeddedLintResult> {
    const { settings, files } = embeddedScope(target, root, configFile, only, call.cwd);
    const findings = await this.lintFiles(settings, root, files, call, target);
    return { findings, files, settingsSource: settings.source };
  }

  /** The findings of these files (sorted by file, line, column), each under its own settings (`base`'s, or a nested config's). */
  async lintFiles(
    base: RuffSettings,
    root: string,
    files: readonly string[],
    call: EmbeddedCallOptions,
    /** The path the request named: as a file named to the CLI, `lint.exclude` does not skip it. */
    named?: string,
  ): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const file of files) {
      // The file's own settings: those of the nearest config above it (hierarchical discovery).
      const settings = ruffSettingsFor(file, root, base);
      if (file !== named && excludedBy(settings.lintExclude ?? [], file)) continue;
      const source = this.read(root, file);
      const ignored = ignoredPrefixes(settings, file);
      // From the thread, one JSON string instead of an object per diagnostic; on the main thread, the array.
      const reply = await this.inThread<string | WasmDiagnostic[]>("lint", settings, file, source, call, {
        ignored,
      });
      const diagnostics = typeof reply === "string" ? (JSON.parse(reply) as WasmDiagnostic[]) : reply;
      // What the wasm cannot see of the file (its package), as the CLI applies it.
      findings.push(
        ...withFileContext(
          file,
          diagnostics.map((d) => wasmFinding(file, d)),
          settings,
          ignored,
          root,
          source,
        ),
      );
    }
    findings.sort(byPosition);
    return findings;
  }

  /** Diagnostics (with fixes) of `source` as the content of `file`, the file's per-file ignores applied. */
  async check(
    settings: RuffSettings,
    file: string,
    source: string,
    call: EmbeddedCallOptions,
  ): Promise<WasmDiagnostic[]> {
    this.checkSize(file, Buffer.byteLength(source));
    const ignored = ignoredPrefixes(settings, file);
    const diagnostics = await this.inThread<WasmDiagnostic[]>("check", settings, file, source, call);
    return diagnostics.filter((d) => {
      const code = d.code ?? "invalid-syntax";
      return !ignored.some((selector) => selectorCovers(selector, code));
    });
  }

  /** Formats every file in memory; a file that cannot be parsed is a tool_error naming it. */
  async format(
    target: string,
    root: string,
    configFile: string | undefined,
    call: EmbeddedCallOptions,
  ): Promise<EmbeddedFormatResult> {
    const { settings, files } = embeddedScope(target, root, configFile, undefined, call.cwd);
    const changed = await this.formatFiles(settings, root, files, call, target);
    return { files, changed, settingsSource: settings.source };
  }

  /** Formats these files in memory, each under its own settings; a file that cannot be parsed is a tool_error. */
  async formatFiles(
    base: RuffSettings,
    root: string,
    files: readonly string[],
    call: EmbeddedCallOptions,
    /** The path the request named: as a file named to the CLI, `format.exclude` does not skip it. */
    named?: string,
  ): Promise<EmbeddedFormatResult["changed"]> {
    const changed: EmbeddedFormatResult["changed"] = [];
    const failures: string[] = [];
    for (const file of files) {
      // The wasm formats every source as a .py file, never in the stub style the CLI gives a .pyi file:
      // a stub is left as it is (the results say so, see embeddedStubNote) rather than rewritten wrongly.
      if (file.endsWith(".pyi")) continue;
      const settings = ruffSettingsFor(file, root, base);
      if (file !== named && excludedBy(settings.formatExclude ?? [], file)) continue;
      const before = this.read(root, file);
      let after: string;
      try {
        after = await this.inThread<string>("format", settings, file, before, call);
      } catch (err) {
        if (!(err instanceof RuffInputError)) throw err;
        failures.push(`${file}: ${err.message.replace(/^Error: /, "")}`);
        continue;
      }
      if (after !== before) changed.push({ file, before, after });
    }
    if (failures.length)
      throw new ToolError("tool_error", `ruff (embedded) could not format ${failures.length} file(s)`, {
        output: failures.join("\n"),
      });
    return changed;
  }

  private async inThread<T, Op extends RuffThreadRequest["op"] = RuffThreadRequest["op"]>(
    op: Op,
    settings: RuffSettings,
    /** The file the source is (its per-file options: target version, first-party modules). */
    file: string,
    source: string,
    call: EmbeddedCallOptions,
    extras?: RuffOpExtras<Op>,
  ): Promise<T> {
    try {
      return await this.host.call<T, Op>(op, workspaceOptionsFor(settings, file), source, call, extras);
    } catch (err) {
      if (err instanceof RuffSettingsError)
        throw new ToolError(
          "tool_error",
          `ruff settings${settings.source ? ` in ${settings.source}` : ""} are invalid: ${err.message}`,
        );
      throw err;
    }
  }
}

/** The rule prefixes `file`'s per-file ignores drop. */
function ignoredPrefixes(settings: RuffSettings, file: string): string[] {
  return settings.perFileIgnores.filter((e) => perFileApplies(e.pattern, file)).flatMap((e) => e.codes);
}

const sizeText = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round(bytes / 104857.6) / 10} MiB` : `${bytes} bytes`;

let cachedVersion: string | undefined;
let cachedBuild: unknown;
/**
 * What identifies the bundled ruff in cache keys: its package version and the size of its wasm module
 * (a rebuilt module of the same version changes the size), not its path, so other machines share entries.
 */
export function embeddedRuffBuild(): unknown {
  if (cachedBuild === undefined) {
    const dir = path.dirname(require.resolve("@astral-sh/ruff-wasm-nodejs/package.json"));
    let size: number | null = null;
    try {
      size = fs.statSync(path.join(dir, "ruff_wasm_bg.wasm")).size;
    } catch {
      // No module file where it is expected: the version alone.
    }
    cachedBuild = ["ruff-wasm-nodejs", embeddedRuffVersion(), size];
  }
  return cachedBuild;
}
/** The version of the bundled @astral-sh/ruff-wasm-nodejs (the same as its Workspace.version()). */
export function embeddedRuffVersion(): string {
  cachedVersion ??= (
    JSON.parse(fs.readFileSync(require.resolve("@astral-sh/ruff-wasm-nodejs/package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  return cachedVersion;
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
