/**
 * proper-lockfile, loaded on first use. Loading it installs signal-exit's process signal handlers (to
 * release held locks on exit); a command that takes no lock needs none, and the command line's start-up
 * snapshot (src/cli-snapshot.ts) cannot hold them: they are set up when the first lock is taken.
 */
import { createRequire } from "node:module";

type ProperLockfile = typeof import("proper-lockfile");
let loaded: ProperLockfile | undefined;

export function properLockfile(): ProperLockfile {
  loaded ??= createRequire(import.meta.url)("proper-lockfile") as ProperLockfile;
  return loaded;
}
