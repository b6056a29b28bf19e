/**
 * The `secrets` scanner of security_scan, for every language: the detection the policy uses for edits and
 * the pre-commit hook (src/policy/secrets.ts: secretlint's recommended preset in-process, plus literal
 * credentials assigned to credential names, placeholders and environment lookups allowed), run over the
 * project's files: the git work tree's tracked and untracked-unignored files, or a walk that skips
 * dependency, build, cache and VCS folders. Links are not followed; binary files are skipped.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Finding } from "../../findings/model.js";
import { findSecrets } from "../../policy/secrets.js";
import { PROJECT_FILES } from "../git-ls-files.js";
import { GIT_SAFE_ENV, safeGitArgs } from "../../exec/git-safety.js";

const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const SKIPPED_DIRS = new Set([
  ".git",
  "node_modules",
  ".venv",
  "venv",
  "__pycache__",
  ".mcp-cache",
  "dist",
  "build",
  "target",
  ".tox",
  ".mypy_cache",
  ".ruff_cache",
  ".pytest_cache",
  "vendor",
  ".next",
  "coverage",
]);

export interface SecretsScan {
  findings: Finding[];
  files_scanned: number;
  notes: string[];
}

/** The files to scan under a canonical file or directory. */
function filesUnder(target: string): { files: string[]; notes: string[] } {
  const st = fs.lstatSync(target);
  if (st.isFile()) return { files: [target], notes: [] };
  // In the server itself, outside any sandbox: the repository's config must name no program git runs (a
  // core.fsmonitor ran with `git ls-files`).
  try {
    const top = execFileSync("git", safeGitArgs(["rev-parse", "--show-toplevel"]), {
      cwd: target,
      env: { ...process.env, ...GIT_SAFE_ENV },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const listed = execFileSync(
      "git",
      safeGitArgs(["-c", "core.quotepath=off", "ls-files", "-z", ...PROJECT_FILES]),
      {
        cwd: target,
        env: { ...process.env, ...GIT_SAFE_ENV },
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return {
      files: listed
        .split("\0")
        .filter(Boolean)
        .map((r) => path.join(top, r)),
      notes: ["secrets: the git work tree's files (tracked, and untracked ones git does not ignore)"],
    };
  } catch {
    // Not a git work tree: a walk.
  }
  const files: string[] = [];
  const stack = [target];
  while (stack.length && files.length < MAX_FILES) {
    const dir = stack.pop() as string;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) stack.push(p);
      else if (e.isFile()) files.push(p);
    }
  }
  return { files, notes: [] };
}

/** Scans a canonical target (inside the allowlist) for committed secrets. */
export async function scanSecrets(target: string): Promise<SecretsScan> {
  const { files, notes } = filesUnder(target);
  const findings: Finding[] = [];
  let scanned = 0;
  for (const file of files.slice(0, MAX_FILES)) {
    let fd: number | undefined;
    let text: string;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      const st = fs.fstatSync(fd);
      if (!st.isFile()) continue;
      if (st.size > MAX_FILE_BYTES) {
        notes.push(`secrets: ${file} is over ${MAX_FILE_BYTES} bytes and was not scanned`);
        continue;
      }
      const buf = fs.readFileSync(fd);
      if (buf.subarray(0, 8000).includes(0)) continue;
      text = buf.toString("utf8");
    } catch {
      continue;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    scanned++;
    for (const s of await findSecrets(text, file))
      findings.push({
        tool: "secretlint",
        file,
        line: s.line,
        column: s.column,
        rule_id: `${s.rule.replace(/^@secretlint\/secretlint-rule-/, "")}/${s.kind}`,
        severity: "error",
        message: s.message,
        category: "secret",
      });
  }
  if (files.length > MAX_FILES)
    notes.push(`secrets: ${files.length} files, the first ${MAX_FILES} were scanned`);
  return { findings, files_scanned: scanned, notes };
}
