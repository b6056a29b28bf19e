/** Reading Go's JSON outputs: concatenated (not line-delimited) JSON values with `# pkg` comment lines between. */

/**
 * Splits text into the top-level JSON objects it holds, skipping anything outside braces (go vet -json prints
 * `# package` lines and indented objects one after another). Strings are tracked so braces inside them count not.
 */
export function splitJsonObjects(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          // Not JSON after all (a brace in a message line): skip it.
        }
      }
    }
  }
  return values;
}

/** `/abs/file.go:12:5` (or `file.go:12`) → its parts; undefined for anything else. */
export function parsePosition(posn: string): { file: string; line: number; column: number } | undefined {
  const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(posn);
  if (!m) return undefined;
  return { file: m[1] as string, line: Number(m[2]), column: m[3] ? Number(m[3]) : 1 };
}
