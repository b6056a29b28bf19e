/** Applying ESLint suggestions (the "unsafe" fixes): pure text edits, never overlapping. */

export interface TextEdit {
  range: [number, number];
  text: string;
}

/**
 * Applies the edits that do not overlap an earlier one (by start offset), returning the new text and
 * how many were applied. Overlapping ones are left for a later pass, as ESLint does with fixes.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): { text: string; applied: number } {
  const sorted = [...edits].sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
  const chosen: TextEdit[] = [];
  let lastEnd = -1;
  for (const edit of sorted) {
    if (edit.range[0] < lastEnd) continue;
    chosen.push(edit);
    lastEnd = edit.range[1];
  }
  let out = text;
  for (const edit of chosen.reverse())
    out = out.slice(0, edit.range[0]) + edit.text + out.slice(edit.range[1]);
  return { text: out, applied: chosen.length };
}
