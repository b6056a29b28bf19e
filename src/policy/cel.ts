/**
 * CEL for policy conditions (@marcbachmann/cel-js): one typed environment per kind of check, so a
 * condition is parsed and type-checked when the bundle compiles and only evaluated at check time. Every
 * evaluation is bounded: `matches()` runs in RE2JS (linear time; the library's own uses backtracking
 * RegExp, where `Code generated ` × 48,000 took 45 s), and a step budget counts every node evaluated (cel-js
 * 8.0.0's `limits` bound only the parsed expression's shape, not the work of macros over lists: nested
 * `exists` took 114 s). An expression is compiled on its own; overrides are composed by the caller.
 */
import { createRequire } from "node:module";
import { Environment } from "@marcbachmann/cel-js";
import type { RE2JS } from "re2js";
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
    git_config_set: "list<string>",
    stdin_from: "string",
    code_from: "list<string>",
    via: "list<string>",
    from_script: "string",
    writes: "list<string>",
    deletes: "list<string>",
    destroys: "list<string>",
    uploads: "list<string>",
    push_branches: "list<string>",
    unjudged_commits: "list<string>",
    text: "string",
    cwd: "string",
    project_root: "string",
    home: "string",
    parse_error: "bool",
    dynamic_options: "bool",
    undecided: "string",
  },
  edit: {
    path: "string",
    basename: "string",
    before: "string",
    after: "string",
    header: "string",
    added: "list<string>",
    removed: "list<string>",
    is_new: "bool",
    write_kind: "string",
    secrets: "list<string>",
    suppressions: "list<string>",
    config_weakening: "list<string>",
    guard_file: "bool",
    outside_allowed_paths: "bool",
  },
  diagnostic: { tool: "string", rule: "string", message: "string", path: "string" },
};

export type CelContext = Record<string, unknown>;
export type CompiledCondition = (context: CelContext) => boolean;

/** The evaluation went over its step budget: the answer is not known, which is never "no match". */
export class CelBudgetError extends Error {
  constructor(readonly steps: number) {
    super(`the condition went over its evaluation budget (${steps} steps)`);
    this.name = "CelBudgetError";
  }
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

const RE2_METHOD = "matches_re2";
const regexes = new Map<string, RE2JS>();
const MAX_CACHED_REGEXES = 512;
let engine: typeof RE2JS | undefined;

/**
 * Gives the engine instead of loading it: the hook's start-up snapshot (src/hooks/claude-code-snapshot.ts)
 * holds RE2JS in its heap, and a snapshot may not run a package's own file from node_modules.
 */
export function useRe2Engine(given: typeof RE2JS): void {
  engine = given;
}

/** A pattern compiled once by RE2JS (loaded on first use: a hook whose checks match no regex never loads it). */
export function re2(pattern: string): RE2JS {
  let re = regexes.get(pattern);
  if (!re) {
    engine ??= (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JS }).RE2JS;
    re = engine.compile(pattern);
    if (regexes.size >= MAX_CACHED_REGEXES) regexes.clear();
    regexes.set(pattern, re);
  }
  return re;
}

/** Steps one evaluation may take: a base, plus a few per list element in its context (a linear pass is fine). */
export const BASE_STEPS = 1_000_000;
const STEPS_PER_ELEMENT = 50;
let steps = 0;
let budget = Infinity;

/** Evaluator nodes run through here (see stepCounted); over the budget, evaluation stops. */
function countStep(): void {
  if (++steps > budget) throw new CelBudgetError(budget);
}

interface EvaluatorLike {
  run(ast: unknown, ctx: unknown): unknown;
}

const environments = new Map<AppliesTo, Environment>();

/**
 * Counts every node the environment's evaluator runs. cel-js calls registered functions with the evaluator as
 * `this` and runs every child node through `evaluator.run`, so wrapping that one method meters all evaluation.
 * If a later cel-js stops doing so, building the environment fails here (a test pins it), never silently.
 */
function stepCounted(env: Environment): Environment {
  let evaluator: EvaluatorLike | undefined;
  env.registerFunction("__mcq_evaluator(): bool", function (this: EvaluatorLike) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- cel-js passes its evaluator only as `this`
    evaluator = this;
    return true;
  });
  env.evaluate("__mcq_evaluator()");
  if (!evaluator || typeof evaluator.run !== "function")
    throw new Error("cel-js did not expose its evaluator: the CEL step budget cannot be installed");
  const run = evaluator.run;
  evaluator.run = function (ast, ctx) {
    countStep();
    return run.call(this, ast, ctx);
  };
  return env;
}

function environmentFor(kind: AppliesTo): Environment {
  let env = environments.get(kind);
  if (!env) {
    env = new Environment({ unlistedVariablesAreDyn: false, limits: { maxAstNodes: 20_000, maxDepth: 64 } });
    for (const [name, type] of Object.entries(CEL_VARIABLES[kind])) env.registerVariable(name, type);
    env.registerFunction(`string.${RE2_METHOD}(string): bool`, (text: string, pattern: string) => {
      let re: RE2JS;
      try {
        re = re2(pattern);
      } catch (err) {
        throw new Error(
          `invalid regular expression (RE2 syntax) ${JSON.stringify(pattern)}: ${(err as Error).message}`,
          { cause: err },
        );
      }
      return re.test(text);
    });
    environments.set(kind, stepCounted(env));
  }
  return env;
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

interface AstNode {
  op: string;
  args: unknown;
  pos?: number;
}

/** Line (1-based) and column (0-based) of an offset in the expression. */
function position(expression: string, offset: number): [number, number] {
  const before = expression.slice(0, offset);
  const line = before.split("\n").length;
  return [line, offset - (before.lastIndexOf("\n") + 1)];
}

/**
 * Points every `.matches(…)` of the parsed expression at the RE2 implementation, and compiles each literal
 * pattern now, so an unsupported one (a backreference, a lookaround) is a compile error with its position.
 */
function useRe2(node: unknown, expression: string, trusted = false): void {
  if (!node || typeof node !== "object") return;
  const n = node as AstNode;
  if (n.op === "rcall" && Array.isArray(n.args) && n.args[0] === "matches") {
    (n.args as unknown[])[0] = RE2_METHOD;
    const [pattern] = (n.args[2] as AstNode[]) ?? [];
    if (!trusted && pattern?.op === "value" && typeof pattern.args === "string") {
      try {
        re2(pattern.args);
      } catch (err) {
        const [line, column] = position(expression, pattern.pos ?? 0);
        throw new CelCompileError(
          `matches(): not a valid RE2 regular expression (patterns run in a linear-time engine: no backreferences or lookaround): ${(err as Error).message}`,
          line,
          column,
        );
      }
    }
  }
  if (Array.isArray(n.args))
    for (const a of n.args) {
      if (Array.isArray(a)) for (const x of a) useRe2(x, expression, trusted);
      else useRe2(a, expression, trusted);
    }
}

/** The number of list elements and map entries in a context: the budget grows with what there is to look at. */
function contextSize(context: CelContext): number {
  let size = 0;
  for (const v of Object.values(context))
    if (Array.isArray(v)) size += v.length;
    else if (v && typeof v === "object") size += Object.keys(v).length;
  return size;
}

/** Evaluates within the step budget for that context; throws CelBudgetError past it. */
export function withBudget<T>(context: CelContext, run: () => T, base = BASE_STEPS): T {
  const saved = [steps, budget] as const;
  steps = 0;
  budget = base + STEPS_PER_ELEMENT * contextSize(context);
  try {
    return run();
  } finally {
    [steps, budget] = saved;
  }
}

/**
 * Parses and type-checks one expression; it must be a bool. Throws CelCompileError. `trusted` (the shipped
 * conditions, compiled and checked by the build) leaves the literal patterns to be compiled when first used.
 */
/**
 * Conditions compiled, by what they were compiled from: the same expression compiles to the same function (it
 * holds no state of its own), and a process judging several files, or the command line's start-up snapshot
 * (src/cli-snapshot.ts, which compiles the shipped policies while it is built), compiles each once.
 */
const compiled = new Map<string, CompiledCondition>();
const MAX_COMPILED = 2048;

export function compileCondition(kind: AppliesTo, expression: string, trusted = false): CompiledCondition {
  const key = `${kind}\0${trusted}\0${expression}`;
  let condition = compiled.get(key);
  if (!condition) {
    condition = compileConditionNow(kind, expression, trusted);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, condition);
  }
  return condition;
}

function compileConditionNow(kind: AppliesTo, expression: string, trusted: boolean): CompiledCondition {
  const env = environmentFor(kind);
  let checked;
  try {
    checked = env.check(expression);
  } catch (err) {
    throw describe(err);
  }
  if (!checked.valid) throw describe(checked.error);
  if (checked.type !== "bool") throw new CelCompileError(`condition is ${checked.type}, not bool`, 1);
  let run;
  try {
    run = env.parse(expression);
  } catch (err) {
    throw describe(err);
  }
  useRe2(run.ast, expression, trusted);
  return (context) => withBudget(context, () => run(context) === true);
}

/** Several compiled expressions as one condition: any of them (a shipped condition ORed with `also_when`s). */
export function anyOf(conditions: readonly CompiledCondition[]): CompiledCondition {
  return (context) => conditions.some((c) => c(context));
}
