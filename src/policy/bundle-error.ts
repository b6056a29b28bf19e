/**
 * What an invalid bundle reports (every problem with file, line and reason), and where a condition's text
 * sits in its file. Free of the YAML parser, so a hook that reads only the shipped snapshot never loads it.
 */

export interface BundleProblem {
  file: string;
  line: number;
  reason: string;
}

/** An invalid bundle: every problem found, each as `file:line: reason`. */
export class BundleError extends Error {
  constructor(readonly problems: BundleProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.reason}`).join("\n"));
    this.name = "BundleError";
  }
}

/** Where a scalar's text sits: its first line, and for a folded block (`>`) its source lines, trimmed. */
export interface ValueLines {
  line: number;
  folded?: string[];
}

/** The file line of a (line, column) position inside a condition's text. */
export function lineInValue(at: ValueLines, lineInExpression: number, column: number): number {
  if (!at.folded || lineInExpression !== 1) return at.line + lineInExpression - 1;
  // Folding joined the source lines with single spaces: walk them to the column.
  let offset = 0;
  for (let i = 0; i < at.folded.length; i++) {
    offset += (at.folded[i] as string).length + 1;
    if (column < offset) return at.line + i;
  }
  return at.line;
}
