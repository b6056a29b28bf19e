/**
 * One tool under the names its runs give it: `driver.name` differs between runs in case, spacing or a
 * version suffix ("ESLint", "eslint 9.1.0", "Ruff v0.17"), so runs are compared by a normalized name; and when
 * two logs each have exactly one tool left that the other does not name, they are taken as one tool under two
 * names (microsoft/sarif-sdk's baseline cases: "testhost" then "SARIF Functional Testing"), with a note. Pure.
 */

/** The name without case, surrounding punctuation or a trailing version ("ruff 0.17.6" → "ruff"). */
export function toolKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s@/_:-]*\(?v?\d+(\.\d+)*([-+.][0-9a-z.-]*)?\)?$/, "")
    .replace(/[\s_]+/g, " ")
    .trim();
}

export interface ToolPairing {
  /** Maps each tool key of the `other` log to the key it is compared under (its own, or the current's). */
  alias: Map<string, string>;
  notes: string[];
}

/**
 * How the tools of `other` (a baseline or history log) are compared with those of `current`: by toolKey, and a
 * lone unnamed tool on each side taken as the same. `names` give the names as the logs spell them, for notes.
 */
export function pairTools(
  current: ReadonlyMap<string, ReadonlySet<string>>,
  other: ReadonlyMap<string, ReadonlySet<string>>,
  label: string,
): ToolPairing {
  const alias = new Map<string, string>();
  const notes: string[] = [];
  const spelled = (names: ReadonlySet<string> | undefined) =>
    [...(names ?? [])].map((n) => `"${n}"`).join(", ");
  for (const [key, names] of other) {
    alias.set(key, key);
    const theirs = current.get(key);
    if (theirs && new Set([...names, ...theirs]).size > 1)
      notes.push(
        `tool names differ between the ${label} (${spelled(names)}) and the current log (${spelled(theirs)}): compared as one tool, ${key}`,
      );
  }
  const onlyOther = [...other.keys()].filter((k) => !current.has(k));
  const onlyCurrent = [...current.keys()].filter((k) => !other.has(k));
  if (onlyOther.length === 1 && onlyCurrent.length === 1) {
    const [from] = onlyOther as [string];
    const [to] = onlyCurrent as [string];
    alias.set(from, to);
    notes.push(
      `the ${label} names its tool ${spelled(other.get(from))} and the current log ${spelled(current.get(to))}: each is the only tool the other does not name, so they were compared as one tool`,
    );
  } else if (onlyOther.length || onlyCurrent.length) {
    const side = (keys: string[], log: ReadonlyMap<string, ReadonlySet<string>>) =>
      keys.map((k) => spelled(log.get(k))).join(", ");
    notes.push(
      `tools in one log only (their results have nothing to match): ${[
        onlyOther.length ? `the ${label}: ${side(onlyOther, other)}` : "",
        onlyCurrent.length ? `the current log: ${side(onlyCurrent, current)}` : "",
      ]
        .filter(Boolean)
        .join("; ")}`,
    );
  }
  return { alias, notes };
}
