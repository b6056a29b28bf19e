/**
 * cargo's `--message-format=json` compiler messages (rustc and clippy diagnostics) as findings, with their
 * suggestions as corrections: MachineApplicable is safe, anything else (MaybeIncorrect, HasPlaceholders,
 * Unspecified) unsafe.
 */
import path from "node:path";
import { linePosition, type Finding } from "../../findings/model.js";

interface Span {
  file_name: string;
  line_start: number;
  line_end: number;
  column_start: number;
  column_end: number;
  is_primary: boolean;
  label?: string | null;
  suggested_replacement?: string | null;
  suggestion_applicability?: string | null;
}

interface Diagnostic {
  message: string;
  code?: { code: string } | null;
  level: string;
  spans: Span[];
  children: Diagnostic[];
  rendered?: string | null;
}

export interface CorrectionEdit {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  text: string;
}

/** A finding with what the compiler or clippy suggests in its place. */
export interface RustFinding extends Finding {
  /** rustc's `level` as printed: error, warning, note, help. */
  level: string;
  correction?: { safe: boolean; edits: CorrectionEdit[] };
  /** The primary span's label (rustc's short format appends it to the message). */
  label?: string;
  /** A suggestion rustc shows inline under the code (`^^^ help: ...`): its short format appends it too. */
  inline_help?: string;
}

export interface CargoMessages {
  findings: RustFinding[];
  /** `build-finished` said success: false (a compile error stopped the build). */
  buildFailed: boolean;
}

const LEVELS: Record<string, Finding["severity"]> = {
  error: "error",
  "error: internal compiler error": "error",
  warning: "warning",
  note: "info",
  help: "info",
};

/** Parses cargo's JSON lines; files are resolved against the workspace root, as cargo names them. */
export function parseCargoMessages(stdout: string, workspaceDir: string, tool: string): CargoMessages {
  const findings: RustFinding[] = [];
  let buildFailed = false;
  // A file built by two targets (the library, and the library's tests with --all-targets) gets each of its
  // diagnostics twice, word for word; cargo prints it once ("3 warnings (3 duplicates)"), and so do we.
  const seen = new Set<string>();
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    let msg: { reason?: string; success?: boolean; message?: Diagnostic };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      continue;
    }
    if (msg.reason === "build-finished" && msg.success === false) buildFailed = true;
    if (msg.reason !== "compiler-message" || !msg.message) continue;
    const d = msg.message;
    const primary = d.spans.find((s) => s.is_primary);
    // Summaries such as "3 warnings emitted" or "aborting due to previous error" have no span.
    if (!primary) continue;
    const same = d.rendered ?? JSON.stringify(d);
    if (seen.has(same)) continue;
    seen.add(same);
    const code = d.code?.code ?? "";
    const edits: CorrectionEdit[] = [];
    let safe = true;
    for (const child of d.children)
      for (const s of child.spans)
        if (typeof s.suggested_replacement === "string") {
          edits.push({
            line: s.line_start,
            column: s.column_start,
            end_line: s.line_end,
            end_column: s.column_end,
            text: s.suggested_replacement,
          });
          if (s.suggestion_applicability !== "MachineApplicable") safe = false;
        }
    const lint = code.startsWith("clippy::") ? code.slice("clippy::".length) : undefined;
    findings.push({
      tool: code.startsWith("clippy::") ? "clippy" : tool === "clippy" ? "rustc" : tool,
      file: path.resolve(workspaceDir, primary.file_name),
      line: primary.line_start,
      column: primary.column_start,
      end_line: primary.line_end,
      end_column: primary.column_end,
      rule_id: code,
      severity: LEVELS[d.level] ?? "warning",
      level: d.level,
      message: d.message,
      correctable: edits.length > 0 && safe,
      ...(edits.length ? { correction: { safe, edits } } : {}),
      ...(lint
        ? { docs_url: `https://rust-lang.github.io/rust-clippy/master/index.html#${lint}` }
        : /^E\d{4}$/.test(code)
          ? { docs_url: `https://doc.rust-lang.org/error_codes/${code}.html` }
          : {}),
      ...(primary.label ? { label: primary.label } : {}),
      ...inlineHelp(d.rendered),
    });
  }
  return { findings, buildFailed };
}

/** In rustc's rendering, a suggestion short enough to sit beside the carets: `  |     ^^^^ help: msg: \`x\``. */
function inlineHelp(rendered: string | null | undefined): { inline_help?: string } {
  const m = /^\s*\|\s*\^+\s+help: (.+)$/m.exec(rendered ?? "");
  return m ? { inline_help: m[1] as string } : {};
}

/**
 * A compile error: rustc's own (an `E0308`-style code, or none: syntax errors), not a lint at error level
 * (`clippy::eq_op` is deny by default, `#![deny(unused_variables)]` makes a rustc lint one). Those are
 * findings; only a compile error means the crate did not build, so clippy could not lint it.
 */
export function isCompileError(f: RustFinding): boolean {
  return f.severity === "error" && (f.rule_id === "" || /^E\d{4}$/.test(f.rule_id));
}

/**
 * Whether a cargo run failed without telling why in a finding: a compile error, or a non-zero exit with no
 * error-level diagnostic to explain it (a deny-level lint makes cargo exit 101 with `build-finished`
 * false: that is a finding, not a failure).
 */
export function cargoFailed(messages: CargoMessages, returncode: number | null): boolean {
  if (messages.findings.some(isCompileError)) return true;
  const explained = messages.findings.some((f) => f.severity === "error");
  return (returncode !== 0 || messages.buildFailed) && !explained;
}

/**
 * Seed 000's `--message-format=short` line, as rustc's short emitter writes it: `file:line:col: level[E0308]:
 * message: primary label: help: inline suggestion` (error codes in brackets; lint names are not). Built here
 * rather than by asking for json-diagnostic-short: cargo replays cached diagnostics in the format of the build
 * that made them, and the scratch target dir is shared, so the long rendering is the one always there.
 */
export function shortFormat(f: RustFinding, displayFile: string): string {
  const code = /^E\d{4}$/.test(f.rule_id) ? `[${f.rule_id}]` : "";
  const label = f.label ? `: ${f.label}` : "";
  const help = f.inline_help ? `: help: ${f.inline_help}` : "";
  return `${displayFile}:${linePosition(f)}: ${f.level}${code}: ${f.message}${label}${help}`;
}
