/**
 * The Markdown link check of one tree: files are streamed from the walk and handled a few at a time
 * (read, parse, check, drop the text), external URLs are checked concurrently as they are found, and
 * `file#anchor` links into other files are settled once every file's anchors are known.
 */
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../../engine/errors.js";
import { Semaphore } from "../../engine/semaphore.js";
import type { Allowlist } from "../../paths/allowlist.js";
import { anchorProblem, decodeFragment, type AnchorIndex } from "./anchors.js";
import { analyzeMarkdown, type ExtractedLink } from "./extract.js";
import { isMarkdownFile, walkMarkdownFiles } from "./files.js";
import { ExternalLinkChecker, type HttpOutcome } from "./http-check.js";
import { classifyLink, localTargetPath } from "./link-target.js";
import { LocalTargets, MAX_FILE_BYTES, readTextCapped } from "./local-targets.js";
import { BrokenLinkCollector, type ReportEntry } from "./report.js";

export interface CheckOptions {
  /** Canonical file or directory inside the allowlist. */
  target: string;
  allowlist: Allowlist;
  checkExternal: boolean;
  /** Per external URL. */
  timeoutMs: number;
  /** External requests in flight at once. */
  concurrent: number;
  ignorePatterns: readonly RegExp[];
  /** Gitignore-style patterns of files to skip, relative to `target`. */
  exclude: readonly string[];
  skipAnchors: boolean;
  /** Paths in the report are relative to this directory when inside it. */
  displayBase: string;
  signal?: AbortSignal;
  /** Files read and parsed at once. */
  fileConcurrency?: number;
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
}

interface PendingAnchor {
  file: string;
  url: string;
  line: number;
  real: string;
  fragment: string;
}

const DEFAULT_FILE_CONCURRENCY = 4;

export async function checkMarkdownLinks(options: CheckOptions): Promise<CheckReport> {
  const root = options.allowlist.rootOf(options.target) ?? options.target;
  const stat = await fs.promises.stat(options.target);
  const isFile = stat.isFile();
  if (!isFile && !stat.isDirectory())
    throw new ToolError("invalid_input", "path must be a regular file or a directory");
  const repoRoot = findRepoRoot(isFile ? path.dirname(options.target) : options.target, root);
  const display = (file: string) => displayPath(file, options.displayBase);
  const targets = new LocalTargets(options.allowlist);
  const external = new ExternalLinkChecker({
    timeoutMs: options.timeoutMs,
    concurrent: options.concurrent,
    signal: options.signal,
  });
  const collector = new BrokenLinkCollector();
  const pendingAnchors: PendingAnchor[] = [];
  const externalChecks: Promise<void>[] = [];
  let abortedBy: unknown;
  const counts = { files: 0, links: 0, skipped: 0, externalOff: 0 };

  const ignored = (url: string) => {
    if (options.ignorePatterns.length === 0) return false;
    const decoded = safeDecodeUri(url);
    return options.ignorePatterns.some((re) => re.test(url) || (decoded !== url && re.test(decoded)));
  };

  const settleAnchor = async (p: PendingAnchor): Promise<void> => {
    const index = await targets.anchorsOf(p.real);
    const where = display(p.real);
    if (!index) {
      collector.broken(p.file, p.url, p.line, `cannot read ${where} to check the anchor`);
      return;
    }
    const problem = anchorProblem(p.fragment, index, { headingsKnown: isMarkdownFile(p.real), where });
    if (problem) collector.broken(p.file, p.url, p.line, problem);
  };

  const checkLink = async (
    file: string,
    shown: string,
    own: AnchorIndex,
    link: ExtractedLink,
  ): Promise<void> => {
    if (link.kind === "undefined-reference") {
      collector.broken(shown, link.url, link.line, "undefined reference: no definition for this label");
      return;
    }
    const target = classifyLink(link.url);
    switch (target.kind) {
      case "skipped":
        counts.skipped++;
        return;
      case "external": {
        if (!options.checkExternal) {
          counts.skipped++;
          counts.externalOff++;
          return;
        }
        // Settled here, so a check failing while the walk goes on is never an unhandled rejection.
        externalChecks.push(
          external.check(target.url).then(
            (outcome: HttpOutcome) => {
              if (!outcome.ok) collector.broken(shown, link.url, link.line, outcome.error);
            },
            (err: unknown) => {
              abortedBy ??= err;
            },
          ),
        );
        return;
      }
      case "fragment": {
        if (options.skipAnchors) return;
        const problem = anchorProblem(decodeFragment(target.fragment), own);
        if (problem) collector.broken(shown, link.url, link.line, problem);
        return;
      }
      case "local": {
        const absolute = localTargetPath(target, file, repoRoot);
        const state = await targets.state(absolute);
        if (!state.exists) {
          const why =
            state.reason === "outside" ? "resolves outside the allowed paths (not read)" : "file not found";
          collector.broken(shown, link.url, link.line, why);
          return;
        }
        if (options.skipAnchors || target.fragment === undefined || state.isDirectory) return;
        const fragment = decodeFragment(target.fragment);
        if (state.real === file) {
          const problem = anchorProblem(fragment, own);
          if (problem) collector.broken(shown, link.url, link.line, problem);
        } else {
          const pending = { file: shown, url: link.url, line: link.line, real: state.real, fragment };
          // A file the walk has passed is settled now; others wait until every walked file is known.
          if (targets.known(state.real)) await settleAnchor(pending);
          else pendingAnchors.push(pending);
        }
      }
    }
  };

  const checkFile = async (file: string): Promise<void> => {
    let text: string | undefined;
    try {
      text = await readTextCapped(file);
    } catch (err) {
      collector.unreadable(
        display(file),
        `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
      return;
    }
    if (text === undefined) {
      collector.unreadable(display(file), `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB; not checked`);
      return;
    }
    const doc = analyzeMarkdown(text);
    const shown = display(file);
    counts.files++;
    targets.remember(file, doc.anchorIndex);
    for (const link of doc.links) {
      counts.links++;
      if (ignored(link.url)) {
        counts.skipped++;
        continue;
      }
      await checkLink(file, shown, doc.anchorIndex, link);
    }
  };

  const files = isFile ? single(options.target) : walkMarkdownFiles(options.target, options.exclude, root);
  await forEachConcurrently(files, options.fileConcurrency ?? DEFAULT_FILE_CONCURRENCY, async (file) => {
    options.signal?.throwIfAborted();
    await checkFile(file);
  });

  // Every walked file's anchors are known now; others are parsed on demand.
  const anchorSlots = new Semaphore(options.fileConcurrency ?? DEFAULT_FILE_CONCURRENCY);
  await Promise.all(
    pendingAnchors.map((p) =>
      anchorSlots.run(async () => {
        options.signal?.throwIfAborted();
        await settleAnchor(p);
      }),
    ),
  );
  await Promise.all(externalChecks);
  if (abortedBy !== undefined) throw abortedBy;

  const notes: string[] = [];
  if (counts.externalOff)
    notes.push(`${counts.externalOff} external link(s) not checked (check_external is false)`);
  const report = collector.report();
  return {
    filesChecked: counts.files,
    totalLinks: counts.links,
    brokenLinks: report.brokenLinks,
    skippedLinks: counts.skipped,
    externalUrls: external.distinctUrls,
    broken: report.entries,
    notes,
  };
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

/** Pulls items from an async iterable with at most `limit` handlers running at once. */
async function forEachConcurrently<T>(
  items: AsyncIterable<T>,
  limit: number,
  handle: (item: T) => Promise<void>,
): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  const worker = async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) await handle(next.value);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** The nearest directory from `start` up to `root` holding `.git`; else `root`. `/links` resolve here. */
function findRepoRoot(start: string, root: string): string {
  for (let d = start; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return d;
    if (d === root || path.dirname(d) === d) return root;
  }
}

function displayPath(file: string, base: string): string {
  const rel = path.relative(base, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

function safeDecodeUri(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
