/** Findings reported again word for word, left out. Pure. */
import type { Finding } from "./model.js";

/**
 * The findings with those reported again (same file, position, rule and message) left out, in order: a Go
 * package and its test variant both report a compile error in a shared file; several tsconfigs of one
 * project report an error in a file each includes.
 */
export function distinctFindings<F extends Finding>(findings: readonly F[]): F[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = JSON.stringify([f.file, f.line, f.column, f.rule_id, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
