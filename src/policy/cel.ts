/**
 * CEL for policy conditions (@marcbachmann/cel-js): one typed environment per kind of check, so a
 * condition is parsed and type-checked when the bundle compiles and only evaluated at check time.
 */
import { Environment } from "@marcbachmann/cel-js";
import type { AppliesTo } from "./schema.js";

/** The variables a condition sees, by what the policy applies to (documented in docs/policy.md). */
export const CEL_VARIABLES: Record<AppliesTo, Record<string, string>> = {
  command: {
    program: "string",
    args: "list<string>",
    subcommand: "string",
    flags: "list<string>",
    operands: "list<string>",
    env: "map<string, string>",
    git_config: "map<string, string>",
    stdin_from: "string",
    via: "list<string>",
    text: "string",
    cwd: "string",
    project_root: "string",
    home: "string",
    parse_error: "bool",
  },
  edit: {
    path: "string",
    basename: "string",
    before: "string",
    after: "string",
    added: "list<string>",
    removed: "list<string>",
    is_new: "bool",
    outside_allowed_paths: "bool",
  },
  diagnostic: { tool: "string", rule: "string", message: "string", path: "string" },
};

export type CelContext = Record<string, unknown>;
export type CompiledCondition = (context: CelContext) => boolean;

const environments = new Map<AppliesTo, Environment>();

function environmentFor(kind: AppliesTo): Environment {
  let env = environments.get(kind);
  if (!env) {
    env = new Environment({ unlistedVariablesAreDyn: false });
    for (const [name, type] of Object.entries(CEL_VARIABLES[kind])) env.registerVariable(name, type);
    environments.set(kind, env);
  }
  return env;
}

/** A CEL error: the library's message and the 1-based line inside the expression it points at. */
export class CelCompileError extends Error {
  constructor(
    message: string,
    readonly lineInExpression: number,
    /** 0-based column in that line, when the library points at one. */
    readonly column = 0,
  ) {
    super(message);
  }
}

function describe(err: unknown): CelCompileError {
  const full = err instanceof Error ? err.message : String(err);
  const lines = full.split("\n");
  const at = lines.findIndex((l) => /^>\s+\d+ \|/.test(l));
  const code = lines[at];
  const caret = lines[at + 1];
  const line = code ? Number(/^>\s+(\d+)/.exec(code)?.[1] ?? 1) : 1;
  const column = code && caret ? Math.max(0, caret.indexOf("^") - (code.indexOf("| ") + 2)) : 0;
  return new CelCompileError(lines[0] ?? full, line, column);
}

/** Parses and type-checks a condition; it must be a bool. Throws CelCompileError. */
export function compileCondition(kind: AppliesTo, expression: string): CompiledCondition {
  const env = environmentFor(kind);
  let checked;
  try {
    checked = env.check(expression);
  } catch (err) {
    throw describe(err);
  }
  if (!checked.valid) throw describe(checked.error);
  if (checked.type !== "bool") throw new CelCompileError(`condition is ${checked.type}, not bool`, 1);
  const run = env.parse(expression);
  return (context) => run(context) === true;
}
