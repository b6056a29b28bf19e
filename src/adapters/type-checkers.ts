/** The type-checker registry behind `type_check` (ty, mypy, pyright for Python; tsc for TypeScript). */
import type { ToolContext } from "../engine/tool.js";
import type { Finding } from "../findings/model.js";
import type { FindingTally } from "../findings/collector.js";
import { namedRegistry } from "./named-registry.js";

export interface TypeCheckRequest {
  /** Canonical path (file or directory) inside the allowlist. */
  target: string;
  strict: boolean;
  /** Canonical config file, when given. */
  config?: string;
  /** Other validated tool arguments. */
  args: Record<string, unknown>;
  /** The files whose diagnostics the call shows (`files`); a checker reading a stream keeps only those. */
  shown?: (file: string) => boolean;
}

export interface TypeCheckOutcome {
  /** Every diagnostic of the run (the tool filters by `files` afterwards). */
  findings: Finding[];
  /** Diagnostics after `findings`, in view, counted but not kept (collector.ts). */
  beyond?: FindingTally;
  /** Every diagnostic the checker reported, in view or not, when `findings` holds only some. */
  totalInProject?: number;
  command: string;
  returncode?: number | null;
  output?: string;
  truncated?: boolean;
  notes: string[];
  /** True when the checker itself judged the code clean (e.g. exit 0). */
  passed: boolean;
  /**
   * Set when the checker ran on more than the target (the project's configured files) so that the
   * view keeps only the findings within this path (summary.scope "filtered").
   */
  viewWithin?: string;
  /**
   * What the run read besides the project's files, for the result cache's key (tsc: the config chain,
   * the program's sources and the `include` folders); never part of a result.
   */
  reads?: { configs?: string[]; sources?: string[]; dirs?: string[]; unknown?: string };
  /** The checker's version, when the adapter knows it (the TypeScript it loaded): SARIF's driver. */
  version?: string;
}

export interface TypeCheckerAdapter {
  name: string;
  languages: string[];
  /**
   * false: it takes no script known only by its `#!` line, even named (tsc: TS6231, no extension it
   * resolves); absent: a named script of its languages is its (script-files.ts), as mypy's or pyright's.
   */
  scripts?: false;
  /** Whether this checker is the default for a target (e.g. tsc for a directory with tsconfig.json). */
  claims?(target: string): boolean;
  check(ctx: ToolContext, request: TypeCheckRequest): Promise<TypeCheckOutcome>;
  /**
   * What decides a run beyond the project's files and the call's arguments (the targets the project's CI
   * names), for the result cache's key.
   */
  keyFacts?(ctx: ToolContext, request: TypeCheckRequest): unknown | Promise<unknown>;
  /** Whether the checker can run for this target (installed in the project or on PATH); default true. */
  isAvailable?(ctx: ToolContext, target: string): boolean;
  /**
   * Which copy of the checker a request runs, for the result cache's key, where the project's own and the
   * bundled one can both run it (tsc): by origin, version and folder, for each config it runs.
   */
  identity?(
    ctx: ToolContext,
    request: Pick<TypeCheckRequest, "target" | "config">,
  ): unknown | Promise<unknown>;
}

const checkers = namedRegistry<TypeCheckerAdapter>();

export const registerTypeChecker = checkers.register;
export const typeCheckerNames = checkers.names;
export const findTypeChecker = checkers.find;
