/**
 * A project's regular files copied into a scratch folder, within caps, for the fixers that compute their
 * fixes in a copy (clippy's and golangci-lint's --fix): links are left out, skipped folders are not entered,
 * and a tree past the caps is refused rather than copied in part.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../errors.js";

export interface ScratchCopy {
  /** Names of folders and files not copied (VCS, build, dependency folders). */
  skip: (name: string) => boolean;
  /** What is left to copy: decremented as files are copied; below zero, the copy is refused. */
  budget: { files: number; bytes: number };
  /** The refusal when the caps are passed (`the module is too large to copy … (over N files or B bytes)`). */
  tooLarge: string;
  /** Called for each file copied, with its path and its copy's. */
  onFile?: (real: string, copy: string) => void;
}

/** Copies the regular files of `from` into `to` (created 0700), recursively, as `how` says. */
export function copyIntoScratch(from: string, to: string, how: ScratchCopy): void {
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (how.skip(e.name)) continue;
    const src = path.join(from, e.name);
    const dest = path.join(to, e.name);
    const st = fs.lstatSync(src);
    if (st.isDirectory()) copyIntoScratch(src, dest, how);
    else if (st.isFile()) {
      how.budget.files -= 1;
      how.budget.bytes -= st.size;
      if (how.budget.files < 0 || how.budget.bytes < 0) throw new ToolError("invalid_input", how.tooLarge);
      fs.copyFileSync(src, dest);
      how.onFile?.(src, dest);
    }
  }
}
