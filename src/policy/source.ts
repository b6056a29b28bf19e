/**
 * Reading the bundle's source files with positions: YAML documents (whose nodes know their line) and
 * Markdown skills with YAML front matter. Every problem becomes a BundleProblem naming file, line and reason.
 */
import type { Document, LineCounter } from "yaml";
import type { z } from "zod";
import type { BundleProblem, ValueLines } from "./bundle-error.js";
import { yaml } from "../yaml-lazy.js";

export { BundleError, lineInValue, type BundleProblem, type ValueLines } from "./bundle-error.js";

export interface YamlSource {
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** Line the front matter starts at in the file (0 for a plain YAML file). */
  lineOffset: number;
  text: string;
}

export function readYaml(
  file: string,
  text: string,
  problems: BundleProblem[],
  lineOffset = 0,
): YamlSource | undefined {
  const lines = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors)
      problems.push({
        file,
        line: (e.linePos?.[0]?.line ?? 1) + lineOffset,
        reason: e.message.split("\n")[0] ?? e.message,
      });
    return undefined;
  }
  return { file, doc, lines, lineOffset, text };
}

/** The 1-based line of the node at `path` (or of its nearest existing parent). */
export function lineOf(source: YamlSource, path: readonly (string | number)[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? source.doc.contents : source.doc.getIn(path.slice(0, n), true);
    if (yaml().isNode(node) && node.range)
      return source.lines.linePos(node.range[0]).line + source.lineOffset;
  }
  return 1 + source.lineOffset;
}

/** Where a scalar's text starts (block scalars `|` / `>` start on the line after their indicator). */
export function valueStartLine(source: YamlSource, path: readonly (string | number)[]): ValueLines {
  const node = source.doc.getIn(path, true);
  const line = lineOf(source, path);
  if (!yaml().isScalar(node) || (node.type !== "BLOCK_FOLDED" && node.type !== "BLOCK_LITERAL"))
    return { line };
  if (node.type === "BLOCK_LITERAL" || !node.range) return { line: line + 1 };
  const raw = source.text.slice(node.range[0], node.range[1]).split("\n").slice(1);
  return { line: line + 1, folded: raw.map((l) => l.trim()).filter((l) => l !== "") };
}

/** Validates a document against a schema; problems carry the line of the offending node. */
export function validate<T>(
  source: YamlSource,
  schema: z.ZodType<T>,
  problems: BundleProblem[],
): T | undefined {
  const parsed = schema.safeParse(source.doc.toJS({ maxAliasCount: 100 }) ?? {});
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues.slice(0, 20)) {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const where = path.length ? path.join(".") : "(top level)";
    const detail =
      issue.code === "unrecognized_keys" ? `unknown key(s) ${issue.keys.join(", ")}` : issue.message;
    problems.push({ file: source.file, line: lineOf(source, path), reason: `${where}: ${detail}` });
  }
  return undefined;
}

/** Splits a Markdown file into its front matter (YAML between `---` lines) and body. */
export function splitFrontMatter(
  text: string,
): { frontMatter: string; body: string; bodyLine: number } | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return undefined;
  const frontMatter = m[1] ?? "";
  return { frontMatter, body: text.slice(m[0].length), bodyLine: frontMatter.split("\n").length + 3 };
}

/** The numbered items under a `## Steps` heading, in order. */
export function stepsOf(body: string): string[] {
  const section = /^##\s+Steps\s*$([\s\S]*?)(?=^##\s|(?![\s\S]))/m.exec(body);
  if (!section) return [];
  const steps: string[] = [];
  for (const line of (section[1] ?? "").split("\n")) {
    const item = /^\s*\d+\.\s+(.*)$/.exec(line);
    if (item) steps.push((item[1] ?? "").trim());
    else if (steps.length > 0 && /^\s{2,}\S/.test(line)) steps[steps.length - 1] += ` ${line.trim()}`;
  }
  return steps;
}
