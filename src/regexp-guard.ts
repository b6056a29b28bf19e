/**
 * Regular expressions built from what a project says (ruff's exclude globs, .gitignore lines, a tool's
 * patterns) run on V8's backtracking engine, where a crafted pattern can take exponential time: an exclude
 * of `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` held a 40-character path for over a minute, on the event loop, where no
 * time limit can stop it. This V8 flag moves a match that backtracks too much to V8's linear-time engine (the
 * same answer; every pattern without backreferences or lookaround). Set by every entry point when it
 * starts, never while a snapshot is built (a blob loads only with the flags it was built with).
 */
import v8 from "node:v8";

export const LINEAR_FALLBACK_FLAG = "--enable-experimental-regexp-engine-on-excessive-backtracks";

let set = false;

export function guardRegexpBacktracking(): void {
  if (set || v8.startupSnapshot?.isBuildingSnapshot()) return;
  v8.setFlagsFromString(LINEAR_FALLBACK_FLAG);
  set = true;
}
