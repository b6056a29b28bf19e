/**
 * What the parser finds in a Markdown text (its links, disabled-link count and anchors), remembered in the
 * result cache under the text's hash: a fresh `check` of a documentation tree that has not changed parses
 * nothing again (on rust-lang/book, micromark and the garbage it leaves were two thirds of the check's
 * CPU). Only a file's own analysis is kept, by its content; whether its links resolve (the targets, the
 * anchors of other files) is decided anew on every run, so a hit can never make a verdict stale.
 */
import { buildId } from "../../cache/build-id.js";
import { keyOf, sha256 } from "../../cache/hash.js";
import { analyzeMarkdown, type ExtractedLink, type MarkdownDocument } from "./extract.js";

/** The part of the result cache the memo uses: local layers only (a parse is cheaper than a request). */
export interface AnalysisStore {
  getLocal<T>(key: string): T | undefined;
  put(key: string, value: unknown, options: { local: true }): void;
}

/** A MarkdownDocument as JSON (its anchor set as a sorted list). */
interface StoredAnalysis {
  links: ExtractedLink[];
  disabledLinks: number;
  anchors: string[];
  lineCount: number;
}

const isStored = (v: unknown): v is StoredAnalysis =>
  typeof v === "object" &&
  v !== null &&
  Array.isArray((v as StoredAnalysis).links) &&
  Array.isArray((v as StoredAnalysis).anchors) &&
  typeof (v as StoredAnalysis).disabledLinks === "number" &&
  typeof (v as StoredAnalysis).lineCount === "number";

/**
 * The analyses of one run: analyzeMarkdown with the run's options, through `store` when there is one. The
 * key names this build (a parser change is a miss), the options and the text's SHA-256. `cached` and
 * `total` count the files analyzed, each once, and how many of them came from the store.
 */
export class MarkdownAnalyses {
  cached = 0;
  total = 0;
  private readonly counted = new Set<string>();
  private readonly caseSensitive: boolean;
  private readonly build: string | undefined;

  constructor(
    options: { caseSensitive?: boolean },
    private readonly store?: AnalysisStore,
  ) {
    this.caseSensitive = options.caseSensitive === true;
    this.build = store ? buildId() : undefined;
  }

  /** Whether a store is used (the result then says how many files it served). */
  get remembered(): boolean {
    return this.store !== undefined;
  }

  /** The analysis of `text`, the content of `file`. */
  analyze(file: string, text: string): MarkdownDocument {
    const first = !this.counted.has(file);
    if (first) {
      this.counted.add(file);
      this.total++;
    }
    const { store, caseSensitive } = this;
    if (!store) return analyzeMarkdown(text, { caseSensitive });
    const key = keyOf("markdown-analysis", this.build, caseSensitive, sha256(text));
    const known = store.getLocal<unknown>(key);
    if (isStored(known)) {
      if (first) this.cached++;
      return {
        links: known.links,
        disabledLinks: known.disabledLinks,
        anchorIndex: { anchors: new Set(known.anchors), lineCount: known.lineCount },
      };
    }
    const doc = analyzeMarkdown(text, { caseSensitive });
    const stored: StoredAnalysis = {
      links: doc.links,
      disabledLinks: doc.disabledLinks,
      anchors: [...doc.anchorIndex.anchors].sort(),
      lineCount: doc.anchorIndex.lineCount,
    };
    store.put(key, stored, { local: true });
    return doc;
  }
}
