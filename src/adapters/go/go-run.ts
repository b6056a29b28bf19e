/** Runs the go command and Go tools with the Go environment; a missing one says how to install it. */
import { ToolError } from "../../errors.js";
import type { ToolContext } from "../../engine/tool.js";
import { ProgramNotFoundError, type RunSpec } from "../../exec/runner.js";
import { complaintOf } from "../../engine/result.js";

/** Collects a run's whole stdout and stderr from the runner's line callbacks. */
export function fullOutput() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    lines: { onStdoutLine: (l: string) => out.push(l), onStderrLine: (l: string) => err.push(l) },
    stdout: () => out.join("\n"),
    stderr: () => err.join("\n"),
  };
}
import { GO_ENV, goBinDirs } from "./go-env.js";

const INSTALL_HINTS: Record<string, string> = {
  go: "install Go (https://go.dev/doc/install)",
  staticcheck: "install it with `go install honnef.co/go/tools/cmd/staticcheck@latest`",
  "golangci-lint":
    "install it with `go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest` (or see https://golangci-lint.run)",
  golint:
    "golint is deprecated upstream; `go install golang.org/x/lint/golint@latest` still installs it, or use staticcheck",
};

/** Runs a Go tool; a missing one is tool_not_found saying how to install it. */
export async function runGoTool(
  ctx: ToolContext,
  program: string,
  args: string[],
  cwd: string,
  command: string,
  env: Record<string, string> = {},
  /** Every line as it arrives (findings are read from the whole output; run.stdout stays capped). */
  lines: Pick<RunSpec, "onStdoutLine" | "onStderrLine"> = {},
) {
  try {
    return await ctx.run({
      program,
      args,
      cwd,
      env: { ...GO_ENV, ...env },
      searchDirs: goBinDirs(),
      ...lines,
    });
  } catch (err) {
    if (err instanceof ProgramNotFoundError)
      throw new ToolError(
        "tool_not_found",
        `${program} is not installed (not on PATH, GOBIN or GOPATH/bin); ${INSTALL_HINTS[program] ?? ""}`,
        { command },
      );
    throw err;
  }
}

/** Lines of `go list`'s errors a message quotes at most. */
const LOAD_ERROR_LINES = 6;

/**
 * Why the go command cannot load the packages `patterns` name in module `mod` (go.mod needing `go mod
 * tidy`, a missing dependency): the first lines of `go list`'s errors, joined; undefined when it loads
 * them. Asked only once a tool has loaded no package where there are Go files (staticcheck prints
 * `"./..." matched no packages` and exits 0; gosec scans no file): those tools do not say why.
 */
export async function goLoadError(
  ctx: ToolContext,
  mod: string,
  patterns: readonly string[],
): Promise<string | undefined> {
  const args = ["list", "--", ...patterns];
  const run = await runGoTool(ctx, "go", args, mod, `go ${args.join(" ")}`);
  if (run.returncode === 0) return undefined;
  const lines = run.stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, LOAD_ERROR_LINES);
  return lines.length ? lines.join(" ") : `go list exited ${run.returncode}`;
}

/** go's own complaint (`go: updates to go.mod needed; to update it: go mod tidy`), skipping `# pkg` headers. */
export function goComplaint(stderr: string): string | undefined {
  return complaintOf(stderr, (l) => l.trim() !== "" && !l.trim().startsWith("#"));
}
