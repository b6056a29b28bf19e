/** The server's `--help` (and the seed 001 drop-in's), in the layout every command shares (src/cli/help.ts). */
import { HELP_FLAG, type Flag } from "../cli/args.js";
import { renderHelp } from "../cli/help.js";
import { OPTIONS } from "./options.js";

/** The command line's programs: the server's own, and seed 001's drop-in (dist/eslint-typescript-mcp.js). */
export type Program = "mcp-code-quality" | "eslint-typescript-mcp";

export const VERSION_FLAG: Flag = { flag: "--version", type: "boolean", help: "print the version" };

/** The commands of `mcp-code-quality`, each with its own --help. */
const COMMANDS: (readonly [string, string])[] = [
  [
    "mcp-code-quality [serve] [options]",
    "the MCP server: HTTP on 127.0.0.1 (--mode standalone, the default), or --mode stdio for MCP clients",
  ],
  [
    "mcp-code-quality check [PATH...] [options]",
    "run a project's format check, lint, type check and link check (check --help)",
  ],
  ["mcp-code-quality hook install claude-code|pre-commit", "install the policy hooks (hook --help)"],
  ["mcp-code-quality hook claude-code|pre-commit", "run a policy hook (what the installed hooks call)"],
  [
    "mcp-code-quality policy compile [options]",
    "validate the policy bundle and write it compiled (policy --help)",
  ],
  [
    "mcp-code-quality client --tool NAME --arguments JSON [options]",
    "call a tool of a running HTTP server (the same as --mode client)",
  ],
];

const DROP_IN_ABOUT = [
  "The drop-in for the ESLint & TypeScript MCP server: MCP over stdio with its six tools (lint, lint_fix,",
  "typecheck, fix_all, rollback, audit_log; --toolsets eslint-typescript), the working directory",
  "allowed. Its environment variables: ESLINT_MCP_ALLOW_DIRS (colon-separated folders added to the",
  "allowed paths), ESLINT_MCP_LOG_LEVEL, ESLINT_MCP_SNAPSHOT_MAX_BYTES, ESLINT_MCP_AUDIT_MAX_BYTES.",
  "It is mcp-code-quality started as `mcp-code-quality --mode stdio --toolsets eslint-typescript`:",
  "the options below apply after those (see mcp-code-quality --help for the other commands).",
];

/** `--help`: what the program is, its commands, and every server option. */
export function helpText(program: Program = "mcp-code-quality"): string {
  const options = { title: "Options", flags: [...OPTIONS, HELP_FLAG, VERSION_FLAG] };
  if (program === "eslint-typescript-mcp")
    return renderHelp({
      usage: ["eslint-typescript-mcp [options]"],
      about: DROP_IN_ABOUT,
      groups: [options],
    });
  return renderHelp({
    usage: ["mcp-code-quality [COMMAND] [options]"],
    commands: COMMANDS,
    groups: [options],
    footer: ["Docs: README.md and docs/ in the package (docs/check.md, docs/policy.md, ...)."],
  });
}
