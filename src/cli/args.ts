/**
 * The one flag parser of every command line entry (the server, `check`, `hook`, `policy`, `client`): a
 * command declares its flags (name, switch or value, environment variables, help) and node:util
 * `parseArgs` reads them, strictly. A mistake throws UsageError with the same words wherever it is made:
 *
 *   --bogus: unknown flag (see mcp-code-quality check --help)
 *   --timeout: needs a value
 *   --fix: takes no value
 *   "extra": unexpected argument (flags look like --name value)
 *   --port: expected an integer in 0-65535, got "abc"      (int(), for numbers)
 *   frobnicate: unknown command (see mcp-code-quality --help)
 *
 * Every entry prints it after its name (`mcp-code-quality check: …`) and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A mistake on the command line: exit 2, the message after the command's name. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A mistake about one flag: its message starts with the flag (`--port: …`). */
export class FlagError extends UsageError {
  constructor(
    readonly flag: string,
    problem: string,
  ) {
    super(`${flag}: ${problem}`);
  }
}

/** One flag, declared once: parsed, checked and listed in --help from this. */
export interface Flag {
  /** `--timeout`. */
  flag: string;
  /** A switch takes no value (`--fix`); the default is a flag with a value (`--timeout 30`). */
  type?: "string" | "boolean";
  /** The value's name in --help (default VALUE). */
  value?: string;
  /** Repeatable: every value is kept. */
  multiple?: boolean;
  /** A one-letter alias (`h` for -h). */
  short?: string;
  /** Environment variables read when the flag is not given (first set wins). */
  env?: readonly string[];
  help: string;
}

/** What a command line takes. */
export interface CommandLine {
  /** The command as typed (`mcp-code-quality check`), named in the messages. */
  name: string;
  flags: readonly Flag[];
  /** It takes arguments that are not flags (PATHs, FILEs). */
  positionals?: boolean;
}

export interface Parsed {
  /** By flag name without the dashes (`max-concurrent`); absent when not given. */
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `--help` and `-h`, which every command takes. */
export const HELP_FLAG: Flag = { flag: "--help", type: "boolean", short: "h", help: "print this help" };

const isSwitch = (f: Flag) => f.type === "boolean";

function parseOptions(flags: readonly Flag[]): NonNullable<ParseArgsConfig["options"]> {
  return Object.fromEntries(
    flags.map((f) => [
      f.flag.slice(2),
      {
        type: isSwitch(f) ? ("boolean" as const) : ("string" as const),
        ...(f.multiple ? { multiple: true } : {}),
        ...(f.short ? { short: f.short } : {}),
      },
    ]),
  );
}

/** Parses `argv` against the command's flags; a mistake throws UsageError in the shared words. */
export function parseCommandLine(command: CommandLine, argv: readonly string[]): Parsed {
  const options = parseOptions(command.flags);
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: command.positionals === true,
    });
    return { values: values as Parsed["values"], positionals };
  } catch (err) {
    throw culprit(command, argv, options) ?? new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** The argument strict parsing refused, found among the tokens the lenient parse makes of the same line. */
function culprit(
  command: CommandLine,
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig["options"]>,
): UsageError | undefined {
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind === "positional" && !command.positionals)
      return new FlagError(JSON.stringify(t.value), "unexpected argument (flags look like --name value)");
    if (t.kind !== "option") continue;
    const spec = options[t.name];
    if (!spec) return new FlagError(t.rawName, `unknown flag (see ${command.name} --help)`);
    if (spec.type === "boolean" && t.value !== undefined) return new FlagError(t.rawName, "takes no value");
    if (spec.type === "string" && (t.value === undefined || (!t.inlineValue && t.value.startsWith("-"))))
      return new FlagError(
        t.rawName,
        t.value === undefined
          ? "needs a value"
          : `needs a value (a value starting with "-": ${t.rawName}=${t.value})`,
      );
  }
  return undefined;
}

/** `frobnicate: unknown command (see mcp-code-quality hook --help)`. */
export const unknownCommand = (word: string, parent: string): UsageError =>
  new FlagError(word, `unknown command (see ${parent} --help)`);

/** A whole number in min-max: the words every number flag uses for a value it refuses. */
export function int(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim()))
    throw new FlagError(flag, `expected an integer in ${min}-${max}, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new FlagError(flag, `must be in ${min}-${max}, got ${n}`);
  return n;
}

/** The first argument when it names a command (not a flag), else undefined. */
export const commandWord = (argv: readonly string[]): string | undefined =>
  argv[0] !== undefined && !argv[0].startsWith("-") ? argv[0] : undefined;

/** --help or -h anywhere before a `--`. */
export function asksHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}
