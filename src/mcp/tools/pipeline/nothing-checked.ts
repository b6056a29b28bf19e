/**
 * A call that checked nothing: `nothing_checked`, no `passed` at all (nothing checked is no pass), the
 * tool's empty lists, and the notes saying why. Every finding tool answers so, read or write.
 */
export function nothingChecked<F extends object>(fields: F, notes: string[]) {
  return { success: true as const, nothing_checked: true as const, ...fields, notes };
}

/** A write tool that found nothing to work on: no pass, no transaction, nothing written. */
export function nothingToFix(dryRun: boolean, notes: string[], why: string | undefined) {
  return nothingChecked({ dry_run: dryRun, changed_files: [] as string[] }, [
    ...notes,
    `checked nothing: ${why ?? "nothing to fix"}; nothing was written`,
  ]);
}
