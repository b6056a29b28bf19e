/**
 * The folder xo keeps its generated tsconfig in, `<cwd>/node_modules/.cache/xo-linter` (xo 1.x to 5.x write it
 * there whatever their cache location, for TypeScript files no tsconfig includes), moved for this process to
 * `to`: node:fs calls naming a path under it are given the same path under `to`, and realpath answers with
 * the name asked. TypeScript still sees the tsconfig at its usual place (its @types lookup, relative paths
 * unchanged), while a lint writes nothing in the project and runs where the project is read-only.
 */
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PATH_FIRST = [
  "readFile",
  "writeFile",
  "mkdir",
  "stat",
  "lstat",
  "access",
  "readdir",
  "rm",
  "unlink",
  "open",
  "exists",
  "appendFile",
] as const;

/** `p` under `from` moved under `to`; anything else as it is. Pure. */
export function moved(p: unknown, from: string, to: string): unknown {
  const s = p instanceof URL && p.protocol === "file:" ? fileURLToPath(p) : p;
  if (typeof s !== "string") return p;
  const abs = path.resolve(s);
  if (abs !== from && !abs.startsWith(`${from}${path.sep}`)) return p;
  return path.join(to, path.relative(from, abs));
}

type Fn = (...args: unknown[]) => unknown;

function wrapFirst(target: Record<string, unknown>, name: string, from: string, to: string): void {
  const original = target[name];
  if (typeof original !== "function") return;
  const f = original as Fn;
  target[name] = Object.assign(function (this: unknown, first: unknown, ...rest: unknown[]) {
    return f.call(this, moved(first, from, to), ...rest);
  }, original);
}

/** realpath of a moved path: the name asked (the real folder is the server's, not the project's). */
function realpathOf(f: Fn, from: string, to: string): Fn {
  return function (this: unknown, p: unknown, ...rest: unknown[]) {
    const m = moved(p, from, to);
    if (m === p) return f.call(this, p, ...rest);
    const real = f.call(this, m, ...rest);
    const back = (r: unknown) => (typeof r === "string" ? path.join(from, path.relative(to, r)) : r);
    return real instanceof Promise ? real.then(back) : back(real);
  };
}

function wrapRealpath(target: Record<string, unknown>, name: string, from: string, to: string): void {
  const original = target[name];
  if (typeof original !== "function") return;
  const f = original as Fn & { native?: Fn };
  const wrapped = realpathOf(f, from, to);
  if (f.native) Object.assign(wrapped, { native: realpathOf(f.native, from, to) });
  target[name] = wrapped;
}

/** Moves `from` to `to` for every node:fs user of this process (CommonJS and ES modules alike). */
export function moveFolder(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  const sync = fs as unknown as Record<string, unknown>;
  const promises = fs.promises as unknown as Record<string, unknown>;
  for (const name of PATH_FIRST) {
    wrapFirst(sync, name, from, to);
    wrapFirst(sync, `${name}Sync`, from, to);
    wrapFirst(promises, name, from, to);
  }
  wrapRealpath(sync, "realpathSync", from, to);
  wrapRealpath(sync, "realpath", from, to);
  wrapRealpath(promises, "realpath", from, to);
  // ES modules' named imports of node:fs see the wrapped functions too.
  module.syncBuiltinESMExports();
}
