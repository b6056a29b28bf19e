/**
 * Several tsc runs of one project (its nearest tsconfig.json and the tsconfigs its scripts type-check with)
 * as one outcome: a file two configs both include is checked by each, and its diagnostic is shown once.
 * Pure.
 */
import { distinctFindings } from "../../findings/distinct.js";
import type { TypeCheckOutcome } from "../type-checkers.js";

/** The runs as one: every distinct finding, passed only when each passed, every note once. */
export function mergeTscOutcomes(runs: readonly TypeCheckOutcome[], ranNote: string): TypeCheckOutcome {
  const [first, ...rest] = runs;
  if (!first) throw new Error("mergeTscOutcomes: no run");
  if (rest.length === 0) return first;
  const notes = [...new Set(runs.flatMap((r) => r.notes))];
  const unknown = runs.find((r) => r.reads?.unknown)?.reads?.unknown;
  const union = (pick: (r: NonNullable<TypeCheckOutcome["reads"]>) => string[] | undefined) => [
    ...new Set(runs.flatMap((r) => (r.reads ? (pick(r.reads) ?? []) : []))),
  ];
  const codes = runs.map((r) => r.returncode).filter((c) => c !== undefined);
  const output = runs
    .map((r) => r.output)
    .filter(Boolean)
    .join("\n");
  return {
    findings: distinctFindings(runs.flatMap((r) => r.findings)),
    command: runs.map((r) => r.command).join(" && "),
    ...(codes.length > 0 && {
      returncode: codes.some((c) => c === null) ? null : Math.max(...codes.map((c) => c ?? 0)),
    }),
    ...(output && { output }),
    ...(runs.some((r) => r.truncated) && { truncated: true }),
    notes: [...notes, ranNote],
    passed: runs.every((r) => r.passed),
    reads: unknown
      ? { unknown }
      : { configs: union((r) => r.configs), sources: union((r) => r.sources), dirs: union((r) => r.dirs) },
    ...(first.version !== undefined && { version: first.version }),
  };
}
