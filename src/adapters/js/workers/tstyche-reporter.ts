/**
 * A TSTyche reporter (`tstyche --reporters list,summary,<this file>`): one JSON line per error diagnostic (a
 * failed type assertion, a type error in a test file, a configuration error) with its event, file, line, the
 * names of the describe/test blocks it is in and its whole text, then one `run:end` line with TSTyche's own
 * counts (files, tests, assertions). Runs inside the project's tstyche process (versions 4 to 7 share these
 * events); it writes only to the file the server names in MCQ_TSTYCHE_REPORT (a temp file).
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

interface SourceFile {
  fileName: string;
  getLineAndCharacterOfPosition(pos: number): { line: number; character: number };
}

interface Diagnostic {
  category?: string;
  code?: string;
  text: string | string[];
  origin?: { start: number; sourceFile?: SourceFile };
}

interface TreeNode {
  brand?: string;
  name?: string;
  parent?: TreeNode;
}

interface Payload {
  diagnostics?: Diagnostic[];
  result?: {
    file?: { path?: string } | string | URL;
    expect?: TreeNode;
    test?: TreeNode;
    describe?: TreeNode;
    fileCounts?: Record<string, number>;
    testCounts?: Record<string, number>;
    assertionCounts?: Record<string, number>;
  };
}

function filePath(file: { path?: string } | string | URL | undefined): string | undefined {
  if (file === undefined) return undefined;
  if (file instanceof URL) return fileURLToPath(file);
  if (typeof file === "string") return file.startsWith("file:") ? fileURLToPath(file) : file;
  return file.path;
}

/** The names of the describe and test blocks a node is in, outermost first (an expect has no name). */
function namesOf(node: TreeNode | undefined): string[] {
  const names: string[] = [];
  for (let n = node; n; n = n.parent)
    if (n.name && n.brand !== "expect" && n.brand !== "when") names.unshift(n.name);
  return names;
}

export default class McqReporter {
  #destination = process.env.MCQ_TSTYCHE_REPORT;
  #file: string | undefined;

  #write(line: Record<string, unknown>): void {
    if (this.#destination) fs.appendFileSync(this.#destination, `${JSON.stringify(line)}\n`);
  }

  on([event, payload]: [string, Payload]): void {
    if (event === "file:start") this.#file = filePath(payload.result?.file);
    if (event === "run:end") {
      const r = payload.result;
      this.#write({ event, files: r?.fileCounts, tests: r?.testCounts, assertions: r?.assertionCounts });
      return;
    }
    for (const d of payload?.diagnostics ?? []) {
      if (d.category !== undefined && d.category !== "error") continue;
      const source = d.origin?.sourceFile;
      const line =
        source && d.origin ? source.getLineAndCharacterOfPosition(d.origin.start).line + 1 : undefined;
      const r = payload.result;
      this.#write({
        event,
        file: source?.fileName ?? filePath(r?.file) ?? this.#file,
        line,
        names: namesOf(r?.expect ?? r?.test ?? r?.describe),
        code: d.code,
        message: ([] as string[]).concat(d.text).join("\n"),
      });
    }
  }
}
