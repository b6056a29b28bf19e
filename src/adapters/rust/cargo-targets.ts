/**
 * Which targets cargo check and clippy build: every one (`--all-targets`), as `cargo clippy --all-targets`
 * in a project's CI and rust-analyzer do. Without it only the library and binaries were built: a type error
 * in `tests/`, `examples/` or a `#[cfg(test)]` module passed (dtolnay/anyhow: `cargo check --tests` reports
 * E0308 where ours said "no findings"). A bench written for nightly (`#![feature(test)]`) does not build on
 * stable; then every other target is built instead, and a note says which benches were left out.
 */
import type { ToolContext } from "../../engine/tool.js";
import { displayCommand } from "../../engine/result.js";
import { runCargo, type CargoRun } from "./cargo-run.js";

export const ALL_TARGETS = ["--all-targets"];
/** `--all-targets` without `--benches`. */
export const ALL_BUT_BENCHES = ["--lib", "--bins", "--tests", "--examples"];

/** rustc's "`#![feature]` may not be used on the stable release channel". */
const NIGHTLY_ONLY = "E0554";

interface CompilerMessageLine {
  reason?: string;
  target?: { kind?: string[]; name?: string };
  message?: { code?: { code?: string } | null };
}

/** The bench targets that failed for needing nightly, from cargo's JSON message lines. Pure. */
export function nightlyOnlyBenches(lines: readonly string[]): string[] {
  const names = new Set<string>();
  for (const line of lines) {
    if (!line.includes(NIGHTLY_ONLY)) continue;
    let m: CompilerMessageLine;
    try {
      m = JSON.parse(line) as CompilerMessageLine;
    } catch {
      continue;
    }
    if (
      m.reason === "compiler-message" &&
      m.message?.code?.code === NIGHTLY_ONLY &&
      m.target?.kind?.includes("bench")
    )
      names.add(m.target.name ?? "?");
  }
  return [...names].sort();
}

export interface EveryTargetRun extends CargoRun {
  /** Every stdout line of the run that counts (cargo's JSON messages, uncapped). */
  lines: string[];
}

/** `cargo <args> --all-targets`; again without the benches when one of them needs nightly. */
export async function runCargoEveryTarget(
  ctx: ToolContext,
  crateDir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<EveryTargetRun> {
  const attempt = async (targets: readonly string[]): Promise<EveryTargetRun> => {
    const lines: string[] = [];
    const argv = [...args, ...targets];
    const ran = await runCargo(ctx, crateDir, argv, displayCommand("cargo", argv), env, (l) => lines.push(l));
    return { ...ran, lines };
  };
  const all = await attempt(ALL_TARGETS);
  const benches = all.run.returncode === 0 ? [] : nightlyOnlyBenches(all.lines);
  if (benches.length === 0) return all;
  const rest = await attempt(ALL_BUT_BENCHES);
  return {
    ...rest,
    notes: [
      ...rest.notes,
      `bench ${benches.join(", ")} needs nightly (\`#![feature]\` on a stable toolchain): every other target was built (${ALL_BUT_BENCHES.join(" ")})`,
    ],
  };
}
