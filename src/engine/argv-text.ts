/**
 * What no process can be given: a NUL character ends a C string, so an argument, an environment value or a
 * working directory holding one cannot reach a program (Node refuses to spawn it). Every process a call starts
 * goes through `ctx.run`, which checks here first, so such text is `invalid_input` naming the argument it came
 * from, whatever the tool, instead of Node's exception.
 */
import { ToolError } from "../errors.js";

const NUL = "\u0000";

/** The call argument (by its path, `markers` or `files[2]`) whose text holds a NUL, if any. */
export function argumentWithNul(args: unknown, at = ""): string | undefined {
  if (typeof args === "string") return args.includes(NUL) ? at || "arguments" : undefined;
  if (Array.isArray(args)) {
    for (let i = 0; i < args.length; i++) {
      const found = argumentWithNul(args[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (args && typeof args === "object")
    for (const [k, v] of Object.entries(args)) {
      const found = argumentWithNul(v, at ? `${at}.${k}` : k);
      if (found) return found;
    }
  return undefined;
}

/**
 * Throws invalid_input when `program`'s argv, environment or working directory holds a NUL; `callArgs` (the
 * call's own arguments) name where it came from.
 */
export function refuseNulInProcessText(
  program: string,
  argv: readonly string[],
  env: Record<string, string | undefined> | undefined,
  cwd: string | undefined,
  callArgs: unknown,
): void {
  const texts = [program, ...argv, cwd ?? "", ...Object.entries(env ?? {}).flatMap(([k, v]) => [k, v ?? ""])];
  if (!texts.some((t) => t.includes(NUL))) return;
  const from = argumentWithNul(callArgs);
  throw new ToolError(
    "invalid_input",
    from
      ? `${from} contains a NUL character (\\u0000), which no program argument can hold`
      : `an argument for ${program} contains a NUL character (\\u0000), which no program argument can hold`,
    from ? { argument: from } : {},
  );
}
