/**
 * The few file-system calls the checker makes per file and per link target, through the callback API
 * (promisified). fs.promises costs several times more per call (FileHandle bookkeeping), which shows
 * on trees of thousands of small files.
 */
import fs from "node:fs";
import { promisify } from "node:util";

export const stat = promisify(fs.stat);
export const lstat = promisify(fs.lstat);
export const readFile = promisify(fs.readFile);
export const readdir = promisify(fs.readdir);
export const realpath = promisify(fs.realpath.native);
