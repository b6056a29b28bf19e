/** Parsing of the `path:line:col: message` lines that ruff (concise), flake8 and many linters print. */
export interface LintLine {
  file: string;
  line: number;
  column: number;
  /** The rule code when the message starts with one (F401, E231, invalid-syntax). */
  code: string | undefined;
  message: string;
  /** The whole line as the tool printed it. */
  text: string;
}

const LINE = /^(.+?):(\d+):(\d+):\s+(.*)$/;
const CODE = /^([A-Z]+[0-9]+|[a-z]+(?:-[a-z]+)+:?)\s+(.*)$/;

/** Every `path:line:col: message` line of a tool's output; other lines (summaries, banners) are skipped. */
export function parseLintLines(output: string): LintLine[] {
  const out: LintLine[] = [];
  for (const raw of output.split("\n")) {
    const text = raw.trimEnd();
    const m = LINE.exec(text);
    if (!m) continue;
    const rest = m[4] as string;
    const c = CODE.exec(rest);
    out.push({
      file: m[1] as string,
      line: Number(m[2]),
      column: Number(m[3]),
      code: c ? (c[1] as string).replace(/:$/, "") : undefined,
      message: c ? (c[2] as string) : rest,
      text,
    });
  }
  return out;
}
