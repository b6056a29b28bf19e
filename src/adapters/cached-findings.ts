/**
 * Per-file caching of tools whose result is a list of findings per file (ruff, flake8, RuboCop...):
 * how findings are stored (file paths relative to the project root) and put back together in the
 * tool's order, and the `cache` marker a result carries.
 */
import path from "node:path";
import { runPerFile, type PerFileJob, type PerFileOutcome } from "../cache/per-file.js";
import type { Finding } from "../findings/model.js";

export interface CacheMarker {
  /** Files whose result came from the cache, of `total`. */
  cached: number;
  total: number;
  /** Set when the run could not be stored, and why. */
  uncached?: string;
}

/** The marker of a per-file outcome: how much came from the cache, and why nothing was stored if so. */
export function markerOf(o: { cached: number; total: number; uncached?: string }): CacheMarker {
  return { cached: o.cached, total: o.total, ...(o.uncached && { uncached: o.uncached }) };
}

/** A finding as stored: its file relative to the root (and `path`, set by views, never stored). */
export function encodeFinding(f: Finding, root: string): Finding {
  const { path: _shown, ...rest } = f;
  return { ...rest, file: path.relative(root, f.file).split(path.sep).join("/") };
}

export function decodeFinding(f: Finding, root: string): Finding {
  return { ...f, file: path.join(root, f.file) };
}

/** Groups findings by file (each file's in the order given). */
export function byFile(findings: readonly Finding[]): Map<string, Finding[]> {
  const out = new Map<string, Finding[]>();
  for (const f of findings) {
    let list = out.get(f.file);
    if (!list) out.set(f.file, (list = []));
    list.push(f);
  }
  return out;
}

export type FindingsJob<M> = Omit<PerFileJob<Finding[], M>, "isEmpty" | "encode" | "decode">;

/** runPerFile with findings as the values. */
export function runFindingsPerFile<M>(job: FindingsJob<M>): Promise<PerFileOutcome<Finding[], M>> {
  return runPerFile<Finding[], M>({
    ...job,
    isEmpty: (v) => v.length === 0,
    // A value is one file's findings: its relative path is computed once.
    encode: (v, root) => {
      const rel = v[0] ? path.relative(root, v[0].file).split(path.sep).join("/") : "";
      return v.map(({ path: _shown, ...f }) => ({
        ...f,
        file: f.file === v[0]?.file ? rel : encodeFinding(f, root).file,
      }));
    },
    decode: (s, file) => (s as Finding[]).map((f) => ({ ...f, file })),
  });
}

/** Every file's findings, files in the order of `files`. */
export function joinFindings(outcome: PerFileOutcome<Finding[], unknown>): Finding[] {
  return outcome.files.flatMap((f) => outcome.values.get(f) ?? []);
}
