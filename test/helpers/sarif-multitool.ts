/**
 * Microsoft's SARIF validator (`sarif-multitool validate`, npm @microsoft/sarif-multitool, a .NET program that
 * runs offline), with GitHub code scanning's rules as well as SARIF's (`--rule-kind "Sarif;Gh"`): the problems
 * it reports, at error and warning level, for SARIF logs on disk. Notes (advice such as SARIF2012's friendly
 * names) are left out: the goal is what GitHub requires.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { tempDir } from "./tools.js";

export interface ValidatorProblem {
  level: "error" | "warning";
  rule: string;
  /** The log it is about, and where in it (`runs[0].tool.driver.rules[1]`). */
  file: string;
  where: string;
  message: string;
}

/** The validator's executable for this platform, or undefined when the package is not installed. */
export function multitool(): string | undefined {
  try {
    const file = createRequire(import.meta.url)("@microsoft/sarif-multitool") as string;
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

interface ValidatorLog {
  runs: {
    tool: { driver: { rules?: { id: string; messageStrings?: Record<string, { text: string }> }[] } };
    results?: {
      ruleId: string;
      level?: string;
      message: { id?: string; arguments?: string[] };
      locations?: { physicalLocation?: { artifactLocation?: { uri?: string } } }[];
    }[];
  }[];
}

/** Validates `files` in one run of the validator; its error- and warning-level results. */
export async function validateSarif(files: string[]): Promise<ValidatorProblem[]> {
  const exe = multitool();
  if (!exe) throw new Error("@microsoft/sarif-multitool is not installed (npm ci installs it)");
  const out = path.join(tempDir("mcq-multitool-"), "validation.sarif");
  await new Promise<void>((resolve, reject) =>
    execFile(
      exe,
      ["validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning;Note", "--output", out, ...files],
      {
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: "1" },
      },
      (err, stdout, stderr) =>
        fs.existsSync(out)
          ? resolve()
          : reject(new Error(`validator failed: ${String(err)}\n${stdout}${stderr}`)),
    ),
  );
  const log = JSON.parse(fs.readFileSync(out, "utf8")) as ValidatorLog;
  const problems: ValidatorProblem[] = [];
  for (const run of log.runs) {
    const rules = new Map((run.tool.driver.rules ?? []).map((r) => [r.id, r]));
    for (const r of run.results ?? []) {
      const level = r.level ?? "warning";
      if (level !== "error" && level !== "warning") continue;
      const args = r.message.arguments ?? [];
      const template = rules.get(r.ruleId)?.messageStrings?.[r.message.id ?? ""]?.text ?? r.message.id ?? "";
      const message = template.replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? "");
      const uri = r.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? "";
      problems.push({ level, rule: r.ruleId, file: path.basename(uri), where: args[0] ?? "", message });
    }
  }
  return problems;
}
