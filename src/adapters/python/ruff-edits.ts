/**
 * Applying the embedded ruff's fixes to a source text, the way `ruff check --fix` does: fixes sorted by
 * position, one overlapping an earlier one skipped (it is picked up by the next pass), all edits of a
 * fix applied together. Positions are 1-based rows and code-point columns (the Utf32 encoding).
 */
import type { WasmDiagnostic, WasmPosition } from "./ruff-embedded.js";

/** UTF-16 index of a 1-based row / code-point column position. */
export function offsetOf(text: string, lineStarts: readonly number[], pos: WasmPosition): number {
  let i = pos.row - 1 < lineStarts.length ? (lineStarts[pos.row - 1] as number) : text.length;
  for (let k = 1; k < pos.column && i < text.length; k++)
    i += (text.codePointAt(i) as number) > 0xffff ? 2 : 1;
  return i;
}

export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

/** One pass: the text with every non-overlapping fix applied, and how many fixes that was. */
export function applyFixesOnce(
  text: string,
  diagnostics: readonly WasmDiagnostic[],
): { text: string; applied: number } {
  const starts = lineStartsOf(text);
  const fixes = diagnostics
    .filter((d) => d.fix && d.fix.edits.length > 0)
    .map((d) => {
      const edits = d.fix!.edits.map((e) => ({
        start: offsetOf(text, starts, e.location),
        end: offsetOf(text, starts, e.end_location),
        content: e.content ?? "",
      }));
      return {
        edits,
        start: Math.min(...edits.map((e) => e.start)),
        end: Math.max(...edits.map((e) => e.end)),
      };
    })
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const accepted: { start: number; end: number; content: string }[] = [];
  let lastEnd = -1;
  let applied = 0;
  for (const fix of fixes) {
    // Overlapping (or inserting at the very end of the previous fix) waits for the next pass.
    if (fix.start < lastEnd || (applied > 0 && fix.start === lastEnd && fix.start === fix.end)) continue;
    accepted.push(...fix.edits);
    lastEnd = fix.end;
    applied++;
  }
  accepted.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of accepted) out = out.slice(0, e.start) + e.content + out.slice(e.end);
  return { text: out, applied };
}
