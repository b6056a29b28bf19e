/**
 * The text formats git keeps configuration in, read as git reads them: key names (`configKey`),
 * GIT_CONFIG_PARAMETERS, config files, and an alias value split into words. Pure.
 */

/** `Core.HooksPath` → `core.hookspath`; a subsection keeps its case (`branch.Main.remote`). */
export function configKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

/** GIT_CONFIG_PARAMETERS: `'key'='value' 'key2=value2'` (sq-quoted, as git writes it). */
export function parseConfigParameters(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  const quoted = (): string | undefined => {
    if (text[i] !== "'") return undefined;
    let s = "";
    i++;
    while (i < text.length) {
      if (text[i] === "'") {
        // '\'' is an escaped quote
        if (text.startsWith("'\\''", i)) {
          s += "'";
          i += 4;
          continue;
        }
        i++;
        return s;
      }
      s += text[i++];
    }
    return s;
  };
  while (i < text.length) {
    while (text[i] === " ") i++;
    if (i >= text.length) break;
    const first = quoted();
    if (first === undefined) {
      // Not git's format: take it whole, as a key with no value.
      out.push([text.slice(i), ""]);
      break;
    }
    if (text[i] === "=") {
      i++;
      out.push([first, quoted() ?? ""]);
    } else {
      const eq = first.indexOf("=");
      out.push(eq === -1 ? [first, "true"] : [first.slice(0, eq), first.slice(eq + 1)]);
    }
  }
  return out;
}

/** git's split_cmdline for an alias value: whitespace-separated, with '…', "…" and backslashes. */
export function splitAlias(value: string): string[] {
  const words: string[] = [];
  let current = "";
  let has = false;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < value.length) current += value[++i];
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < value.length) {
      current += value[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || current) words.push(current);
      current = "";
      has = false;
    } else {
      current += c;
      has = true;
    }
  }
  if (has || current) words.push(current);
  return words;
}

/**
 * `[section "sub"]` / `[section.sub]` headers and `key = value` lines of a git config file (comments, quotes
 * and backslash escapes as git reads them; a key without `=` is true).
 */
export function parseGitConfig(text: string): [string, string][] {
  const out: [string, string][] = [];
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      section =
        header[2] !== undefined ? `${header[1]}.${header[2].replace(/\\(.)/g, "$1")}` : (header[1] as string);
      line = (header[3] as string).trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || !section) continue;
    let value = "";
    let quoted = false;
    const rawValue = m[2];
    if (rawValue === undefined) value = "true";
    else
      for (let i = 0; i < rawValue.length; i++) {
        const c = rawValue[i] as string;
        if (c === '"') quoted = !quoted;
        else if (c === "\\" && i + 1 < rawValue.length) {
          const n = rawValue[++i] as string;
          value += { n: "\n", t: "\t", b: "\b" }[n] ?? n;
        } else if ((c === "#" || c === ";") && !quoted) break;
        else value += c;
      }
    out.push([configKey(`${section}.${m[1]}`), value.trim()]);
  }
  return out;
}
