/**
 * Warnings a tool prints on stderr beside its results (ruff's removed-rule and deprecation notices,
 * Python `DeprecationWarning`s from black or flake8 plugins), so that they reach a result's `notes`
 * and not only its raw `output`.
 */

/** At most this many warnings are kept (a tool can repeat one per file). */
const MAX_WARNINGS = 20;

const WARNING_LINE = /^(?:warning|Warning|WARNING)\b:?\s*(.*)$/;
/** Python's `warnings` format: `file.py:186: DeprecationWarning: message` (also black's `Deprecated:`). */
const PYTHON_WARNING = /^\S+\.py:\d+: (\w*(?:Warning|Deprecated)): (.*)$/;

/**
 * The warnings in `stderr`, one string each, with indented continuation lines (ruff's `- RULE` lists)
 * joined on. Duplicates are kept once.
 */
export function parseToolWarnings(stderr: string, tool: string): string[] {
  const out: string[] = [];
  let current: string[] | undefined;
  const flush = () => {
    if (current) {
      const text = `${tool}: ${current.join(" ")}`;
      if (!out.includes(text) && out.length < MAX_WARNINGS) out.push(text);
    }
    current = undefined;
  };
  for (const raw of stderr.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const warning = WARNING_LINE.exec(line);
    const python = PYTHON_WARNING.exec(line);
    if (warning || python) {
      flush();
      current = [warning ? `warning: ${warning[1]}` : `${python?.[1]}: ${python?.[2]}`];
    } else if (current && /^\s+- /.test(line)) current.push(line.trim());
    else flush();
  }
  flush();
  return out;
}
