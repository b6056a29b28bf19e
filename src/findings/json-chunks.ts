/**
 * JSON text built piece by piece, for outputs of any size (a SARIF log or `check --json` with 100,000
 * findings): the top levels are laid out one member or element per line, every list is written element by
 * element, and what lies deeper is `JSON.stringify`'d whole (one SARIF result, one finding). So no string
 * holds more than one chunk plus one such value, and the call depth follows the nesting of the value, never
 * the length of a list. The text parses to what `JSON.stringify(value)` gives.
 */

export interface JsonChunkOptions {
  /** Objects above this depth are laid out member by member (the root is depth 0); deeper ones are one line. */
  expandDepth?: number;
  /** Characters per yielded chunk (about). */
  chunkChars?: number;
}

/** Values JSON leaves out of objects (and writes as null in arrays). */
const isSkipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

const withToJson = (v: unknown): unknown =>
  v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function"
    ? (v as { toJSON: () => unknown }).toJSON()
    : v;

/** Most members or elements written in one piece (a long list of names is still written one by one). */
const SMALL = 64;

/** A small list or object none of whose members is an object (none laid out further, none with a toJSON). */
function onlyPlainValues(v: object): boolean {
  const members = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
  if (members.length > SMALL) return false;
  for (const m of members) if (m !== null && typeof m === "object") return false;
  return true;
}

/** The JSON text of `value`, in chunks. */
export function* jsonChunks(
  value: unknown,
  options: JsonChunkOptions = {},
): Generator<string, void, undefined> {
  const expandDepth = options.expandDepth ?? 4;
  const chunkChars = options.chunkChars ?? 64 * 1024;
  let buffer = "";

  function* emit(raw: unknown, indent: string, depth: number): Generator<string, void, undefined> {
    const v = withToJson(raw);
    // A list or object of plain values (one finding, one location) laid out by JSON.stringify itself: the
    // same text (two-space layout, `"key": value`), without a generator step per member.
    if (depth < expandDepth && v !== null && typeof v === "object" && onlyPlainValues(v)) {
      const text = JSON.stringify(v, null, 2);
      buffer += indent ? text.replaceAll("\n", `\n${indent}`) : text;
      return;
    }
    const inner = `${indent}  `;
    const members: [string, unknown][] | undefined = Array.isArray(v)
      ? undefined
      : v !== null && typeof v === "object" && depth < expandDepth
        ? Object.entries(v).filter(([, m]) => !isSkipped(withToJson(m)))
        : undefined;
    if (!Array.isArray(v) && !members) {
      buffer += JSON.stringify(v) ?? "null";
      return;
    }
    const items = Array.isArray(v) ? (v as unknown[]) : members!;
    if (items.length === 0) {
      buffer += Array.isArray(v) ? "[]" : "{}";
      return;
    }
    buffer += Array.isArray(v) ? "[" : "{";
    for (let i = 0; i < items.length; i++) {
      buffer += i === 0 ? `\n${inner}` : `,\n${inner}`;
      let item: unknown;
      if (members) {
        const [k, m] = members[i]!;
        buffer += `${JSON.stringify(k)}: `;
        item = m;
      } else item = items[i];
      if (isSkipped(withToJson(item))) buffer += "null";
      else yield* emit(item, inner, depth + 1);
      if (buffer.length >= chunkChars) {
        yield buffer;
        buffer = "";
      }
    }
    buffer += `\n${indent}${Array.isArray(v) ? "]" : "}"}`;
  }

  yield* emit(value, "", 0);
  if (buffer) yield buffer;
}
