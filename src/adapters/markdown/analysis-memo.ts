/**
 * What the parser finds in a Markdown text (its links, disabled-link count and anchors), remembered in the
 * result cache by the text's hash: a fresh `check` of a documentation tree that has not changed parses
 * nothing again (on rust-lang/book, micromark and the garbage it leaves were two thirds of the check's
 * CPU). Only a file's own analysis is kept, by its content; whether its links resolve (the targets, the
 * anchors of other files) is decided anew on every run, so a hit can never make a verdict stale.
 *
 * The analyses of one run are kept together, as one entry per tree checked (a pack, by content hash): one
 * read at the start and at most one write at the end, where an entry per file cost a file created,
 * written and renamed for each (on rust-lang/book, 478 of them: a fifth of a cold check's CPU, most of it
 * in the kernel). A run writes the pack again only when it parsed something, or no longer needed an entry
 * of it; the pack then holds what that run analyzed, so it never outgrows the tree.
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

/** The analyses of a tree, by the SHA-256 of each text. */
type StoredPack = Record<string, StoredAnalysis>;

const isStored = (v: unknown): v is StoredAnalysis =>
  typeof v === "object" &&
  v !== null &&
  Array.isArray((v as StoredAnalysis).links) &&
  Array.isArray((v as StoredAnalysis).anchors) &&
  typeof (v as StoredAnalysis).disabledLinks === "number" &&
  typeof (v as StoredAnalysis).lineCount === "number";

const isPack = (v: unknown): v is StoredPack => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The analyses of one run: analyzeMarkdown with the run's options, through `store` when there is one. The
 * pack's key names this build (a parser change is a miss), the options and the tree checked (`scope`);
 * its entries are keyed by each text's SHA-256. `cached` and `total` count the files analyzed, each once,
 * and how many of them came from the store. `save()` writes the pack back when the run changed it.
 */
export class MarkdownAnalyses {
  cached = 0;
  total = 0;
  private readonly counted = new Set<string>();
  private readonly caseSensitive: boolean;
  private readonly packKey: string | undefined;
  private loaded: StoredPack | undefined;
  /** What this run used or made, by content hash: the pack it leaves. */
  private readonly used = new Map<string, StoredAnalysis>();
  private parsed = 0;

  constructor(
    options: { caseSensitive?: boolean; scope?: string },
    private readonly store?: AnalysisStore,
  ) {
    this.caseSensitive = options.caseSensitive === true;
    this.packKey = store
      ? keyOf("markdown-analyses", buildId(), this.caseSensitive, options.scope ?? "")
      : undefined;
  }

  /** Whether a store is used (the result then says how many files it served). */
  get remembered(): boolean {
    return this.store !== undefined;
  }

  private pack(): StoredPack {
    if (this.loaded) return this.loaded;
    const known = this.packKey === undefined ? undefined : this.store?.getLocal<unknown>(this.packKey);
    this.loaded = isPack(known) ? known : {};
    return this.loaded;
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
    const hash = sha256(text);
    const known = this.used.get(hash) ?? this.pack()[hash];
    if (isStored(known)) {
      if (first) this.cached++;
      this.used.set(hash, known);
      return {
        links: known.links,
        disabledLinks: known.disabledLinks,
        anchorIndex: { anchors: new Set(known.anchors), lineCount: known.lineCount },
      };
    }
    const doc = analyzeMarkdown(text, { caseSensitive });
    this.parsed++;
    this.used.set(hash, {
      links: doc.links,
      disabledLinks: doc.disabledLinks,
      anchors: [...doc.anchorIndex.anchors].sort(),
      lineCount: doc.anchorIndex.lineCount,
    });
    return doc;
  }

  /** Writes the run's pack (in the background) when it parsed a text, or left an entry of the pack unused. */
  save(): void {
    const { store, packKey } = this;
    if (!store || packKey === undefined || this.used.size === 0) return;
    if (this.parsed === 0 && Object.keys(this.pack()).length === this.used.size) return;
    const pack: StoredPack = {};
    for (const [hash, analysis] of [...this.used].sort(([a], [b]) => (a < b ? -1 : 1))) pack[hash] = analysis;
    store.put(packKey, pack, { local: true });
  }
}
