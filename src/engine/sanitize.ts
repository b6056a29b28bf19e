/**
 * Tool-derived text is data for an agent and for a terminal that may show it: terminal escapes and
 * other control characters (ESC, BEL, NUL, CR, DEL, C1) are removed from every string of a result, keys
 * included; newline and tab stay.
 */
import { stripVTControlCharacters } from "node:util";

/* eslint-disable no-control-regex -- matching control bytes is the point */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */

/** The text without escape sequences and control characters other than "\n" and "\t". */
export function stripControlChars(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return stripVTControlCharacters(text).replace(CONTROL, "");
}

/**
 * A copy of a JSON-like value with every string (and object key) stripped of control characters.
 * Values without any are returned as they are (no copy).
 */
export function sanitizeStrings<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === "string") return stripControlChars(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i] as unknown;
      const c = clean(v);
      if (c !== v) (out ??= value.slice())[i] = c;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
      return value;
    // A copy is made only from the first key or value that changes (results are large and mostly clean).
    const keys = Object.keys(value);
    const source = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = source[k];
      const ck = stripControlChars(k);
      const cv = clean(v);
      if (!out && (ck !== k || cv !== v)) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j] as string] = source[keys[j] as string];
      }
      if (out) out[ck] = cv;
    }
    return out ?? value;
  }
  return value;
}
