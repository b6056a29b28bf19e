/**
 * The walk's scope as commands change it: a copy for a sub-shell or a wrapped command, a branch's changes
 * merged back, what `cd`, `alias`, `read` change for the rest of the line, a bare command in the scope, and
 * a reason the line cannot be decided, noted once.
 */
import path from "node:path";
import type { SimpleCommand, WalkScope, Walker } from "./model.js";
import { variable } from "./words.js";

export function cloneScope(scope: WalkScope, extra: Partial<WalkScope> = {}): WalkScope {
  return {
    vars: new Map(scope.vars),
    env: { ...scope.env },
    cwd: scope.cwd,
    ...(scope.oldCwd !== undefined ? { oldCwd: scope.oldCwd } : {}),
    via: scope.via,
    functions: new Set(scope.functions),
    aliases: new Map(scope.aliases),
    gitConfig: scope.gitConfig,
    files: scope.files,
    depth: scope.depth,
    ...(scope.scripts ? { scripts: scope.scripts } : {}),
    ...extra,
  };
}

export function undecided(walker: Walker, reason: string): void {
  if (!walker.out.undecided.includes(reason)) walker.out.undecided.push(reason);
}

/** Variables a branch changed are unknown after it (unless unchanged); functions and aliases it defines stay. */
export function merge(outer: WalkScope, inner: WalkScope): void {
  for (const [name, value] of inner.vars) if (outer.vars.get(name) !== value) outer.vars.set(name, null);
  for (const [name, value] of Object.entries(inner.env))
    if (outer.env[name] !== value) outer.env[name] = value;
  for (const f of inner.functions) outer.functions.add(f);
  for (const [k, v] of inner.aliases) outer.aliases.set(k, v);
  if (inner.cwd !== outer.cwd) outer.cwd = undefined;
  if (inner.oldCwd !== outer.oldCwd) delete outer.oldCwd;
}

export function bare(text: string, scope: WalkScope): SimpleCommand {
  return {
    argv: [],
    dynamic: [],
    env: { ...scope.env },
    stdinFrom: "",
    via: scope.via,
    text,
    cwd: scope.cwd,
    redirects: [],
    codeFrom: [],
    undecided: "",
  };
}

/** What a command changes for the rest of the line: `cd`, `export`, `alias`, functions. */
export function applyLineEffects(command: SimpleCommand, scope: WalkScope, home: string): void {
  const [name, ...args] = command.argv;
  if (name === "cd" || name === "pushd") {
    const target = args.find((a) => !a.startsWith("-") || a === "-");
    const dynamic = command.dynamic.slice(1).some(Boolean);
    const before = scope.cwd;
    if (dynamic) scope.cwd = undefined;
    else if (target === "-") scope.cwd = scope.oldCwd;
    else if (target === undefined)
      scope.cwd = variable({ vars: scope.vars, home, substitute: () => undefined }, "HOME") ?? undefined;
    else
      scope.cwd =
        scope.cwd === undefined && !path.isAbsolute(target)
          ? undefined
          : path.resolve(scope.cwd ?? "/", target);
    if (before === undefined) delete scope.oldCwd;
    else scope.oldCwd = before;
  } else if (name === "popd") scope.cwd = undefined;
  else if (name === "alias") {
    for (const a of args) {
      const eq = a.indexOf("=");
      if (eq > 0) scope.aliases.set(a.slice(0, eq), a.slice(eq + 1));
    }
  } else if (name === "unalias") for (const a of args) scope.aliases.delete(a);
  else if (name === "read" || name === "mapfile" || name === "readarray") {
    for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a)) scope.vars.set(a, null);
  }
}
