/**
 * The Markdown link check of one tree: files are streamed from the walk and handled a few at a time
 * (read, parse, check, drop the text), external URLs are checked concurrently as they are found, and
 * `file#anchor` links into files not walked yet are settled once every walked file's anchors are known.
 */
import fs from "node:fs";
import path from "node:path";
import pLimit from "p-limit";
import { ToolError } from "../../errors.js";
import { isWithin, type Allowlist } from "../../paths/allowlist.js";
import { anchorProblem, closestAnchor, decodeFragment, type AnchorIndex } from "./anchors.js";
import { MarkdownAnalyses, type AnalysisStore } from "./analysis-memo.js";
import type { ExtractedLink } from "./extract.js";
import { isMarkdownFile, walkMarkdownFiles } from "./files.js";
import { githubLinkTarget, readGithubRemote, type GithubRepository } from "./github-links.js";
import { forEachConcurrently, single } from "./iterate.js";
import { ExternalLinkChecker, type HttpOutcome } from "./http-check.js";
import { classifyLink, localTargetPath, type LinkTarget } from "./link-target.js";
import { docsifyTargets, DocsifySites } from "./docsify.js";
import { LocalTargets, MAX_FILE_BYTES, readTextCapped } from "./local-targets.js";
import { BrokenLinkCollector, type BrokenLink, type ReportEntry } from "./report.js";
import { suggestFileName, withFileName, withFragment } from "./suggest.js";
import { markIncrementally } from "../../one-shot-gc.js";

/** A user pattern as the checker uses it (user-regex.ts compiles them in a linear-time engine). */
export interface LinkPattern {
  test(text: string): boolean;
}

export interface LinkRewrite {
  pattern: { replaceAll(text: string, replacement: string): string };
  replacement: string;
}

export interface CheckOptions {
  /** Canonical file or directory inside the allowlist. */
  target: string;
  allowlist: Allowlist;
  checkExternal: boolean;
  /** Per external URL. */
  timeoutMs: number;
  /** External requests in flight at once. */
  concurrent: number;
  ignorePatterns: readonly LinkPattern[];
  /** Applied in order to every link (after ignore_patterns) before it is checked. */
  rewrites?: readonly LinkRewrite[];
  /** Gitignore-style patterns of files to skip, relative to `target`. */
  exclude: readonly string[];
  skipAnchors: boolean;
  /** Fragments must match anchors in case too (default: case-insensitive, as GitHub). */
  caseSensitive?: boolean;
  /** Where each file's parse is remembered by its content (the result cache); none: every file is parsed. */
  analyses?: AnalysisStore;
  /** Request loopback, link-local and private addresses too (default: refused). */
  allowPrivateLinks?: boolean;
  /** Check github.com links into this repository on disk (default true, when its remote is known). */
  githubLinksOnDisk?: boolean;
  /** Paths in the report are relative to this directory when inside it. */
  displayBase: string;
  /**
   * Folders link targets may also be looked up in, read-only, beyond the allowed paths (`check`: the git
   * work tree around the path checked, so `docs/`'s links to `../README.md` resolve).
   */
  readRoots?: readonly string[];
  signal?: AbortSignal;
  /** Files read and parsed at once. */
  fileConcurrency?: number;
  /**
   * Called as each file is checked: how many are done, and of how many once the walk has found them all
   * (it streams, so the total is unknown before); then once more when only `pending` is left (anchors in
   * files outside the walk, external links).
   */
  onProgress?: (done: number, total: number | undefined, pending?: string) => void;
}

export interface CheckReport {
  filesChecked: number;
  totalLinks: number;
  /** Broken link occurrences (a link on two lines counts twice). */
  brokenLinks: number;
  /** Links not checked: ignored by a pattern, other schemes, external with check_external off. */
  skippedLinks: number;
  /** Distinct external URLs requested. */
  externalUrls: number;
  /** Broken links grouped per file, URL and reason, then unreadable files; sorted. */
  broken: ReportEntry[];
  notes: string[];
  /** With a store: how many of the Markdown files parsed came from it (a result's `cached`). */
  analysesCached?: { cached: number; total: number };
}

interface PendingAnchor {
  at: LinkAt;
  real: string;
  fragment: string;
}

/** The items of a walk, counted as they are found; `all` once it has found every one. */
async function* counted<T>(
  items: AsyncIterable<T>,
  walked: { count: number; all: boolean },
): AsyncGenerator<T> {
  for await (const item of items) {
    walked.count++;
    yield item;
  }
  walked.all = true;
}

/** Where a link is, as reported: the part of a BrokenLink that is not the error. */
type LinkAt = Omit<BrokenLink, "error" | "suggestion">;

const DEFAULT_FILE_CONCURRENCY = 4;

/** What every link needs somewhere: `[` (links, references), `<` (autolinks, HTML), or a literal autolink. */
const MAY_HOLD_LINKS = /[[<@]|:\/\/|www\./i;

export async function checkMarkdownLinks(options: CheckOptions): Promise<CheckReport> {
  // Its parse allocates much: marked as it goes, in a one-shot check too (src/one-shot-gc.ts).
  markIncrementally();
  const st = await fs.promises.stat(options.target);
  if (!st.isFile() && !st.isDirectory())
    throw new ToolError("invalid_input", "path must be a regular file or a directory");
  return new LinkCheckRun(options, st.isFile()).run();
}

/** The state of one check: caches, counters, what is still pending, and the broken links found. */
class LinkCheckRun {
  private readonly root: string;
  private readonly repoRoot: string;
  private readonly targets: LocalTargets;
  private readonly analyses: MarkdownAnalyses;
  private readonly external: ExternalLinkChecker;
  private readonly collector = new BrokenLinkCollector();
  private readonly pendingAnchors: PendingAnchor[] = [];
  private readonly externalChecks: Promise<void>[] = [];
  private abortedBy: unknown;
  private readonly counts = { files: 0, links: 0, skipped: 0, externalOff: 0, disabled: 0, github: 0 };
  private readonly fileConcurrency: number;
  private readonly github: GithubRepository | undefined;
  private readonly docsify: DocsifySites;

  constructor(
    private readonly options: CheckOptions,
    private readonly isFile: boolean,
  ) {
    this.root = options.allowlist.rootOf(options.target) ?? options.target;
    const readable = readableRoots(options.allowlist, options.readRoots ?? []);
    const linkRoot = options.readRoots?.find((r) => isWithin(r, options.target)) ?? this.root;
    this.repoRoot = findRepoRoot(isFile ? path.dirname(options.target) : options.target, linkRoot);
    this.analyses = new MarkdownAnalyses(
      { caseSensitive: options.caseSensitive, scope: options.target },
      options.analyses,
    );
    this.targets = new LocalTargets(readable, this.analyses);
    this.docsify = new DocsifySites(this.repoRoot);
    this.external = new ExternalLinkChecker({
      timeoutMs: options.timeoutMs,
      concurrent: options.concurrent,
      signal: options.signal,
      refuseAddress: options.allowPrivateLinks ? () => false : undefined,
    });
    this.github = options.githubLinksOnDisk === false ? undefined : readGithubRemote(this.repoRoot, readable);
    this.fileConcurrency = options.fileConcurrency ?? DEFAULT_FILE_CONCURRENCY;
  }

  async run(): Promise<CheckReport> {
    try {
      await this.walk();
    } catch (err) {
      // Cut short (timeout, cancel): drop the connections at once rather than wait for them.
      void this.external.destroy();
      throw err;
    } finally {
      // What was parsed is kept even when the run is cut short: each analysis holds by its content.
      this.analyses.save();
    }
    await this.external.close();
    if (this.abortedBy !== undefined) throw this.abortedBy;
    return this.report();
  }

  private async walk(): Promise<void> {
    const { options } = this;
    const walked = { count: 0, all: false };
    const files = counted(
      this.isFile ? single(options.target) : walkMarkdownFiles(options.target, options.exclude, this.root),
      walked,
    );
    let done = 0;
    await forEachConcurrently(files, this.fileConcurrency, async (file) => {
      options.signal?.throwIfAborted();
      await this.checkFile(file);
      done++;
      options.onProgress?.(done, walked.all ? walked.count : undefined);
    });
    options.onProgress?.(
      done,
      done,
      `${this.pendingAnchors.length} anchor(s) in files outside the walk, ${this.externalChecks.length} external link(s)`,
    );
    // Every walked file's anchors are known now; targets outside the walk are parsed on demand.
    const slots = pLimit(this.fileConcurrency);
    await Promise.all(
      this.pendingAnchors.map((p) =>
        slots(async () => {
          options.signal?.throwIfAborted();
          await this.settleAnchor(p);
        }),
      ),
    );
    await Promise.all(this.externalChecks);
  }

  private display(file: string): string {
    const rel = path.relative(this.options.displayBase, file);
    return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
  }

  /** The link after the rewrites, in order. */
  private rewritten(url: string): string {
    let out = url;
    for (const r of this.options.rewrites ?? []) out = r.pattern.replaceAll(out, r.replacement);
    return out;
  }

  private ignored(url: string): boolean {
    const patterns = this.options.ignorePatterns;
    if (patterns.length === 0) return false;
    const decoded = safeDecodeUri(url);
    return patterns.some((re) => re.test(url) || (decoded !== url && re.test(decoded)));
  }

  private async checkFile(file: string): Promise<void> {
    let text: string | undefined;
    try {
      text = await readTextCapped(file);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? String(err);
      this.collector.unreadable(this.display(file), `cannot read: ${why}`);
      return;
    }
    if (text === undefined) {
      this.collector.unreadable(
        this.display(file),
        `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB; not checked`,
      );
      return;
    }
    this.counts.files++;
    // Nothing that could be a link: not parsed now; its anchors are read if a link ever needs them.
    if (!MAY_HOLD_LINKS.test(text)) return;
    const doc = this.analyses.analyze(file, text);
    const from: LinkSource = { file, shown: this.display(file), anchors: doc.anchorIndex };
    this.counts.links += doc.disabledLinks;
    this.counts.skipped += doc.disabledLinks;
    this.counts.disabled += doc.disabledLinks;
    this.targets.remember(file, doc.anchorIndex);
    for (const link of doc.links) {
      this.counts.links++;
      if (this.ignored(link.url)) this.counts.skipped++;
      else await this.checkLink(from, link);
    }
  }

  private async checkLink(from: LinkSource, link: ExtractedLink): Promise<void> {
    if (link.kind === "undefined-reference") {
      this.broken(from, link, "undefined reference: no definition for this label");
      return;
    }
    const url = this.rewritten(link.url);
    let target = classifyLink(url);
    if (target.kind === "external" && this.github) {
      const onDisk = githubLinkTarget(target.url, this.github);
      if (onDisk) {
        this.counts.github++;
        target = {
          kind: "local",
          filePath: decodePath(onDisk.path),
          fragment: onDisk.fragment,
          rooted: true,
        };
      }
    }
    switch (target.kind) {
      case "skipped":
        this.counts.skipped++;
        return;
      case "external":
        this.checkExternal(from, link, target.url);
        return;
      case "fragment":
        if (!this.options.skipAnchors) this.checkOwnAnchor(from, link, target.fragment);
        return;
      case "local":
        await this.checkLocal(from, link, target);
    }
  }

  private checkExternal(from: LinkSource, link: ExtractedLink, url: string): void {
    if (!this.options.checkExternal) {
      this.counts.skipped++;
      this.counts.externalOff++;
      return;
    }
    // Settled here, so a check failing while the walk goes on is never an unhandled rejection.
    const at = this.at(from, link);
    this.externalChecks.push(
      this.external.check(url).then(
        (outcome: HttpOutcome) => {
          if (!outcome.ok) this.collector.broken({ ...at, error: outcome.error });
        },
        (err: unknown) => {
          this.abortedBy ??= err;
        },
      ),
    );
  }

  private checkOwnAnchor(from: LinkSource, link: ExtractedLink, fragment: string): void {
    const decoded = decodeFragment(fragment);
    const problem = anchorProblem(decoded, from.anchors, { caseSensitive: this.options.caseSensitive });
    if (!problem) return;
    const near = closestAnchor(decoded, from.anchors);
    this.broken(from, link, problem, near === undefined ? undefined : withFragment(link.url, near));
  }

  private async checkLocal(
    from: LinkSource,
    link: ExtractedLink,
    target: Extract<LinkTarget, { kind: "local" }>,
  ): Promise<void> {
    const absolute = localTargetPath(target, from.file, this.repoRoot);
    let state = await this.targets.state(absolute);
    // A docsify site resolves a link (relative, or from `/`) from its own folder: found there, it holds.
    const site = state.exists ? undefined : this.docsify.siteOf(from.file);
    for (const candidate of site === undefined ? [] : docsifyTargets(site, target.filePath)) {
      const fromSite = await this.targets.state(candidate);
      if (fromSite.exists) {
        state = fromSite;
        break;
      }
    }
    if (!state.exists) {
      if (state.reason === "outside") {
        this.broken(from, link, "resolves outside the allowed paths (not read)");
        return;
      }
      const near = suggestFileName(path.basename(absolute), await this.targets.siblings(absolute));
      this.broken(from, link, "file not found", near && withFileName(link.url, near));
      return;
    }
    if (this.options.skipAnchors || target.fragment === undefined || state.isDirectory) return;
    if (state.real === from.file) {
      this.checkOwnAnchor(from, link, target.fragment);
      return;
    }
    const pending = { at: this.at(from, link), real: state.real, fragment: decodeFragment(target.fragment) };
    // A file the walk has passed is settled now; others wait until every walked file is known.
    if (this.targets.known(state.real)) await this.settleAnchor(pending);
    else this.pendingAnchors.push(pending);
  }

  private async settleAnchor(p: PendingAnchor): Promise<void> {
    const index = await this.targets.anchorsOf(p.real);
    const where = this.display(p.real);
    if (!index) {
      this.collector.broken({ ...p.at, error: `cannot read ${where} to check the anchor` });
      return;
    }
    const headingsKnown = isMarkdownFile(p.real);
    const caseSensitive = this.options.caseSensitive;
    const problem = anchorProblem(p.fragment, index, { headingsKnown, where, caseSensitive });
    if (!problem) return;
    const near = headingsKnown ? closestAnchor(p.fragment, index) : undefined;
    this.collector.broken({
      ...p.at,
      error: problem,
      ...(near === undefined ? {} : { suggestion: withFragment(p.at.url, near) }),
    });
  }

  private at(from: LinkSource, link: ExtractedLink): LinkAt {
    return {
      file: from.shown,
      line: link.line,
      column: link.column,
      url: link.url,
      ...(link.definitionLine === undefined ? {} : { definition_line: link.definitionLine }),
    };
  }

  private broken(from: LinkSource, link: ExtractedLink, error: string, suggestion?: string): void {
    this.collector.broken({
      ...this.at(from, link),
      error,
      ...(suggestion === undefined ? {} : { suggestion }),
    });
  }

  private report(): CheckReport {
    const notes: string[] = [];
    if (this.counts.externalOff)
      notes.push(`${this.counts.externalOff} external link(s) not checked (check_external is false)`);
    if (this.counts.disabled)
      notes.push(`${this.counts.disabled} link(s) not checked: turned off by disable comments`);
    if (this.counts.github && this.github)
      notes.push(
        `${this.counts.github} link(s) to github.com/${this.github.owner}/${this.github.repo} checked on disk`,
      );
    const report = this.collector.report();
    return {
      filesChecked: this.counts.files,
      totalLinks: this.counts.links,
      brokenLinks: report.brokenLinks,
      skippedLinks: this.counts.skipped,
      externalUrls: this.external.distinctUrls,
      broken: report.entries,
      notes,
      ...(this.analyses.remembered && {
        analysesCached: { cached: this.analyses.cached, total: this.analyses.total },
      }),
    };
  }
}

/** The file a link is in. */
interface LinkSource {
  file: string;
  /** `file` as shown in the report. */
  shown: string;
  anchors: AnchorIndex;
}

/** The nearest directory from `start` up to `root` holding `.git`; else `root`. `/links` resolve here. */
/** Where link targets may be read: the allowed roots, and the extra read-only ones. */
function readableRoots(allowlist: Allowlist, extra: readonly string[]): Pick<Allowlist, "rootOf"> {
  return { rootOf: (p) => allowlist.rootOf(p) ?? extra.find((r) => isWithin(r, p)) };
}

function findRepoRoot(start: string, root: string): string {
  for (let d = start; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return d;
    if (d === root || path.dirname(d) === d) return root;
  }
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

function safeDecodeUri(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
