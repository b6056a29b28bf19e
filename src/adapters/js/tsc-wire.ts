/** What the TypeScript worker gets and sends back, and the mapping of a diagnostic into a Finding. */
import type { Finding } from "../../findings/model.js";

export interface TscParams {
  /** Entry file of the typescript module to load (the project's or the bundled one). */
  entry: string;
  /** Absolute tsconfig path. */
  configFile: string;
}

export interface TscDiagnostic {
  /** Absolute path, or null for a diagnostic about the whole program (options, globals). */
  file: string | null;
  line: number;
  column: number;
  end_line?: number;
  end_column?: number;
  code: number;
  category: "error" | "warning" | "info";
  message: string;
}

export interface TscReply {
  diagnostics: TscDiagnostic[];
  /** Root files of the program (from the tsconfig). */
  rootFiles: number;
  /** Config files the tsconfig extends, and its project references' (watched from then on). */
  extendedConfigs: string[];
  /** The program's source files (the result cache keys those outside the project by content). */
  sourceFiles?: string[];
  /** The folders the config's `include` patterns search (a new file there joins the program). */
  includeDirs?: string[];
  /** Bundles the worker compiled without the server's V8 code cache (the server has it made). */
  codeCacheMissed?: string[];
}

/** A finding from a diagnostic; program-wide ones are attributed to the tsconfig. */
export function tscFinding(d: TscDiagnostic, configFile: string): Finding {
  const f: Finding = {
    tool: "tsc",
    file: d.file ?? configFile,
    line: d.line,
    column: d.column,
    rule_id: `TS${d.code}`,
    severity: d.category,
    message: d.message,
  };
  if (d.end_line !== undefined) f.end_line = d.end_line;
  if (d.end_column !== undefined) f.end_column = d.end_column;
  return f;
}
