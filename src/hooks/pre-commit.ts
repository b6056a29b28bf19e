/**
 * git pre-commit hook: every staged file is checked against the bundle as an edit (HEAD → index:
 * suppressions, secrets, protected paths, weakened configs), and the staged files are linted with the
 * engine's `lint_check` (scope staged). Exit 1 refuses the commit.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../config.js";
import { Engine } from "../engine/engine.js";
import { createLogger } from "../log.js";
import { checkEdit } from "../policy/checks.js";
import { compileForRoot, registerPolicyServices } from "../policy/runtime.js";

const MAX_FILES = 1000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

function git(root: string, args: string[]): string {
  return execFileSync("git", args, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function blob(root: string, spec: string): string | undefined {
  try {
    const out = execFileSync("git", ["cat-file", "blob", spec], {
      cwd: root,
      maxBuffer: MAX_FILE_BYTES + 1,
      stdio: ["ignore", "pipe", "ignore"],
    });
    return out.length > MAX_FILE_BYTES ? undefined : out.toString("utf8");
  } catch {
    return undefined;
  }
}

export async function runPreCommitHook(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out: string[] = [];
  let refused = false;
  try {
    const root = git(process.cwd(), ["rev-parse", "--show-toplevel"]).trim();
    const allowLoosening = /^(1|true|yes|on)$/i.test(env.MCP_CODE_QUALITY_POLICY_ALLOW_LOOSENING ?? "");
    const bundle = await compileForRoot(root, allowLoosening);
    const staged = git(root, [
      "-c",
      "core.quotepath=off",
      "diff",
      "--cached",
      "--name-only",
      "-z",
      "--diff-filter=ACMR",
    ])
      .split("\0")
      .filter(Boolean)
      .slice(0, MAX_FILES);
    for (const file of staged) {
      const outcome = checkEdit(bundle, {
        path: file,
        before: blob(root, `HEAD:${file}`),
        after: blob(root, `:${file}`) ?? "",
      });
      for (const v of outcome.violations) {
        if (v.severity === "block") refused = true;
        out.push(
          `${file}: ${v.policy_id} [${v.severity}] ${v.message}\n  advice: ${v.advice}${v.skill_id ? `\n  skill: ${v.skill_id}` : ""}`,
        );
      }
    }
    refused = (await lintStaged(root, staged, out)) || refused;
    process.stderr.write(
      (out.length ? out.join("\n") + "\n" : "") +
        `mcp-code-quality pre-commit (${bundle.hash}): ${refused ? "commit refused" : `${staged.length} staged file(s) passed`}\n`,
    );
  } catch (err) {
    process.stderr.write(
      `mcp-code-quality pre-commit failed, so the commit is refused: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  }
  return refused ? 1 : 0;
}

/**
 * Lints the staged files with lint_check (scope staged: the managed linter of each file's language, with the
 * bundle's advice attached); true when findings refuse the commit.
 */
async function lintStaged(root: string, staged: string[], out: string[]): Promise<boolean> {
  if (staged.length === 0) return false;
  const config = loadConfig(
    ["--allowed-paths", root, "--log-level", "warn", "--toolsets", "core,policy"],
    {
      ...process.env,
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? path.join(os.homedir(), ".local", "state"),
    },
    root,
  );
  const { toolsFor } = await import("../mcp/tools/index.js");
  const engine = new Engine(config, createLogger("warn"), toolsFor(["policy"]));
  try {
    await registerPolicyServices(engine.services, [root], config.policyAllowLoosening);
    const result = await engine.call("lint_check", { path: root, scope: "staged" });
    if (!result.success) {
      out.push(`lint_check: ${String(result.error)}`);
      return true;
    }
    if (result.nothing_checked || result.passed !== false) return false;
    const findings = (result.findings ?? []) as Record<string, unknown>[];
    const advice = (result.advice ?? {}) as Record<string, { advice?: string[] }>;
    out.push(
      `lint_check (staged): ${String(result.finding_count ?? findings.length)} finding(s)`,
      ...findings
        .slice(0, 50)
        .map(
          (f) =>
            `  ${String(f.path)}:${String(f.line)}:${String(f.column)}: ${String(f.rule_id)} ${String(f.message)}`,
        ),
      ...Object.entries(advice)
        .filter(([, a]) => a.advice?.length)
        .slice(0, 10)
        .map(([rule, a]) => `  advice (${rule}): ${a.advice!.join(" ")}`),
    );
    return true;
  } finally {
    await engine.close();
  }
}
