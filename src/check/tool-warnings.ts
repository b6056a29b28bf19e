/**
 * The notes of a check's result that warn: a tool's own warnings as the adapters word them
 * (`ruff: warning: Invalid # noqa directive ...`, `black: DeprecationWarning: ...`: parseToolWarnings) and
 * the server's own cautions worded `warning: ...` (another black than the one the project pins). The report
 * shows these under the check; --json carries every note. Pure.
 */

/** An optional `<tool>: ` and a warning's word. */
const WARNING_NOTE = /^(?:([\w.@/-]+): )?(?:warning|\w+Warning|Deprecated)\b/;

/** The notes that warn, in their order, each once. */
export function warningNotes(notes: readonly string[] | undefined): string[] {
  return [...new Set((notes ?? []).filter((n) => WARNING_NOTE.test(n)))];
}

/** A warning as the report shows it under its check: without the tool's name in front (the check names it). */
export function warningShown(note: string): string {
  const m = WARNING_NOTE.exec(note);
  return m?.[1] ? note.slice(m[1].length + 2) : note;
}
