/** Prettier for format_check and autoformat (javascript, typescript): the project's own, else the bundled one. */
import fs from "node:fs";
import path from "node:path";
import { displayCommand } from "../../engine/result.js";
import type { ToolContext } from "../../engine/tool.js";
import {
  registerFormatter,
  type FormatCheckOutcome,
  type FormatRequest,
  type FormatWriteOutcome,
} from "../formatters.js";
import {
  ancestorsWithin,
  directoryOf,
  findUp,
  foundInside,
  loadableEntry,
  packageRoot,
  resolveTool,
  toolNote,
  type ToolModule,
} from "./project.js";
import type { PrettierParams, PrettierReply, PrettierSupport } from "./prettier-wire.js";
import { prettierTakes, type PrettierKinds } from "./prettier-files.js";
import { PRETTIER_SKIPPED_DIRS } from "./prettier-scope.js";
import { unifiedDiff } from "./unified-diff.js";
import { FORMAT_SCRIPT_NAMES, prettierScriptTargets } from "./lint-script.js";
import { isWithin } from "../../paths/allowlist.js";
import { diffBudget } from "../../findings/diff-caps.js";
import { warmRequest } from "./warm.js";
import { readSourceText, rewriteSource } from "../../paths/safe-fs.js";
import { resultCacheOf } from "../../cache/service.js";
import { buildId } from "../../cache/build-id.js";
import { keyOf } from "../../cache/hash.js";
import type { ResultCache } from "../../cache/result-cache.js";
import { runPerFile } from "../../cache/per-file.js";
import { configIdentity, nodeModulesState, relPath, scanTarget } from "../cached-run.js";
import { relativeTo } from "../../paths/fast-relative.js";
import { markerOf } from "../cached-findings.js";

const EXTENSIONS: Record<string, string[]> = {
  javascript: [".js", ".jsx", ".mjs", ".cjs"],
  typescript: [".ts", ".tsx", ".mts", ".cts"],
};

export const PRETTIER_CONFIG_NAMES = [
  ".prettierrc",
  ".prettierrc.json",
  ".prettierrc.yaml",
  ".prettierrc.yml",
  ".prettierrc.json5",
  ".prettierrc.js",
  ".prettierrc.mjs",
  ".prettierrc.cjs",
  ".prettierrc.ts",
  ".prettierrc.mts",
  ".prettierrc.cts",
  ".prettierrc.toml",
  "prettier.config.js",
  "prettier.config.mjs",
  "prettier.config.cjs",
  "prettier.config.ts",
  "prettier.config.mts",
  "prettier.config.cts",
];

function hasPrettierKey(pkgJson: string): boolean {
  try {
    return (JSON.parse(fs.readFileSync(pkgJson, "utf8")) as Record<string, unknown>).prettier !== undefined;
  } catch {
    return false;
  }
}

/** The nearest Prettier config (a config file, or a package.json with a "prettier" key), up to stopAt. */
export function findPrettierConfig(start: string, stopAt: string): string | undefined {
  for (const dir of ancestorsWithin(start, stopAt)) {
    for (const name of PRETTIER_CONFIG_NAMES) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(candidate)) return foundInside(candidate, stopAt);
    }
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg) && hasPrettierKey(foundInside(pkg, stopAt))) return pkg;
  }
  return undefined;
}

/**
 * What Prettier formats for a request: the target, except the package root itself, where the project's own
 * format script names what it formats (`prettier -c src test`): those of its targets that exist.
 */
export function prettierTargets(target: string, root: string): { targets: string[]; note?: string } {
  if (target !== root) return { targets: [target] };
  let scripts: Record<string, unknown> = {};
  try {
    scripts =
      (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: typeof scripts })
        .scripts ?? {};
  } catch {
    return { targets: [target] };
  }
  const names = [
    ...FORMAT_SCRIPT_NAMES,
    ...Object.keys(scripts).filter((n) => !FORMAT_SCRIPT_NAMES.includes(n)),
  ];
  for (const name of names) {
    const script = scripts[name];
    if (typeof script !== "string") continue;
    const named = prettierScriptTargets(script);
    if (!named) continue;
    const targets = named
      .map((t) => path.resolve(root, t))
      .filter((t) => isWithin(root, t) && fs.existsSync(t));
    if (targets.length)
      return {
        targets,
        note: `formatted ${named.join(" ")}, what the project's ${name} script formats (${script})`,
      };
  }
  return { targets: [target] };
}

/** Where a Prettier call runs and with what: the worker's root, the module, config and ignore files, and
 * what it formats (the target, or what the project's format script names). */
function prettierSetup(ctx: ToolContext, req: FormatRequest) {
  const allowedRoot = ctx.allowlist.rootOf(req.target) ?? req.target;
  const dir = directoryOf(req.target);
  const root = packageRoot(dir, allowedRoot);
  const scope = prettierTargets(req.target, root);
  // A script's target is a path like any other: inside the allowed paths, or refused.
  const targets = scope.targets.map((t) => ctx.allowlist.resolve(t, { label: "prettier target" }));
  const prettier = resolveTool("prettier", root, allowedRoot);
  const configFile = req.config ?? findPrettierConfig(dir, allowedRoot) ?? null;
  const ignoreFiles = [
    findUp([".prettierignore"], dir, allowedRoot),
    findUp([".gitignore"], dir, allowedRoot),
  ].filter((f): f is string => f !== undefined);
  return { allowedRoot, root, targets, scopeNote: scope.note, prettier, configFile, ignoreFiles };
}

type PrettierSetup = ReturnType<typeof prettierSetup>;

/** The warm worker of a setup: one per project root, retired when its config or ignore files change. */
const workerSpec = ({ root, prettier, configFile, ignoreFiles }: PrettierSetup) => ({
  tool: "prettier" as const,
  root,
  watch: [
    ...(configFile ? [configFile] : []),
    ...ignoreFiles,
    path.join(root, "package.json"),
    path.join(prettier.dir, "package.json"),
  ],
});

/**
 * The files a request covers, by name: its language's extensions; or, for the project's scope (`all`),
 * every extension and file name this Prettier formats (its getSupportInfo), as `prettier --check .` does.
 */
async function fileKinds(
  ctx: ToolContext,
  req: FormatRequest,
  language: string,
  setup: PrettierSetup,
): Promise<Pick<PrettierParams, "extensions" | "everything">> {
  if (!req.all) return { extensions: EXTENSIONS[language] ?? [] };
  // What this Prettier formats depends on this Prettier alone (the worker asks it without plugins): remembered
  // in the result cache by its entry file, so a check whose files are all known starts no worker.
  const cache = resultCacheOf(ctx);
  const key = cache && supportInfoKey(setup.prettier);
  // An entry kept before interpreters were asked for is asked again.
  const kept = key ? cache.getLocal<PrettierSupport>(key) : undefined;
  const known = Array.isArray(kept?.interpreters) ? kept : undefined;
  const result =
    known ??
    (
      await warmRequest<PrettierSupport>(
        ctx,
        workerSpec(setup),
        "support",
        { entry: loadableEntry(setup.prettier) },
        "prettier --support-info",
      )
    ).result;
  if (key && !known) cache.put(key, result, { local: true });
  return {
    extensions: result.extensions,
    everything: { filenames: result.filenames, interpreters: result.interpreters },
  };
}

/**
 * The result cache's key of a Prettier's support information: its version, where it is, and its entry file
 * as it is now (device, inode, size, modification and change times: an upgrade or an edit is another key).
 * Undefined when the entry cannot be looked at (asked every time).
 */
function supportInfoKey(prettier: ToolModule): string | undefined {
  try {
    const entry = loadableEntry(prettier);
    const st = fs.statSync(entry, { bigint: true });
    return keyOf(
      "prettier support-info",
      buildId(),
      prettier.version,
      prettier.source,
      entry,
      `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`,
    );
  } catch {
    return undefined;
  }
}

async function runPrettier(
  ctx: ToolContext,
  req: FormatRequest,
  language: string,
  check: boolean,
  setup: PrettierSetup = prettierSetup(ctx, req),
  extra: Pick<PrettierParams, "files" | "withoutText"> = {},
) {
  const { targets, prettier, configFile, ignoreFiles } = setup;
  const params: PrettierParams = {
    entry: loadableEntry(prettier),
    targets,
    ...(await fileKinds(ctx, req, language, setup)),
    configFile,
    ignoreFiles,
    ...extra,
  };
  const command = displayCommand("prettier", [check ? "--check" : "--write", "--", ...targets]);
  const { result, note } = await warmRequest<PrettierReply>(
    ctx,
    workerSpec(setup),
    "format",
    params,
    command,
  );
  const kind = req.all ? "" : language;
  return {
    result,
    notes: prettierNotes(ctx, setup, kind, result, note),
    command,
    note,
    version: prettier.version,
  };
}

function prettierNotes(
  ctx: ToolContext,
  setup: PrettierSetup,
  language: string,
  result: Pick<PrettierReply, "checked" | "failed">,
  note: string | undefined,
): string[] {
  return [
    toolNote(setup.prettier),
    ...(setup.scopeNote ? [setup.scopeNote] : []),
    setup.configFile ? `config: ${setup.configFile}` : "no Prettier config found: Prettier's defaults",
    ...(setup.ignoreFiles.length ? [`ignore files: ${setup.ignoreFiles.join(", ")}`] : []),
    language
      ? `${result.checked} ${language} file(s) checked`
      : `${result.checked} file(s) checked (every kind Prettier formats)`,
    ...result.failed.map(
      (f) => `could not format ${path.relative(ctx.config.cwd, f.file) || f.file}: ${f.message}`,
    ),
    ...(note ? [note] : []),
  ];
}

/** A file's outcome in the result cache: would change, could not be parsed, or ignored (none: formatted). */
/** A file as Prettier left it: unchanged (not stored), changed at its first changed line, ignored, or failed. */
type PrettierFileValue = { changed: number } | "ignored" | { failed: string };

const PRETTIER_CONFIGS =
  /^(?:\.prettierrc(?:\.\w+)?|prettier\.config\.[cm]?[jt]s|\.prettierignore|\.gitignore|\.editorconfig|package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?)$/;

/**
 * `prettier --check` (without a diff) through the result cache: the files the worker would walk (the
 * same walk here: no node_modules, nothing hidden), per file whether it would change, keyed by
 * Prettier's version, the config and ignore files' content and the lock files (plugins).
 */
async function cachedPrettierCheck(
  ctx: ToolContext,
  cache: ResultCache,
  req: FormatRequest,
  language: string,
): Promise<FormatCheckOutcome> {
  const setup = prettierSetup(ctx, req);
  const kinds = await fileKinds(ctx, req, language, setup);
  const extensions = kinds.extensions;
  const takes: PrettierKinds = {
    extensions,
    filenames: new Set(kinds.everything?.filenames ?? []),
    interpreters: kinds.everything?.interpreters ?? [],
  };
  // The worker's own walk: the language's files outside hidden folders, or everything Prettier's CLI walks.
  const skipDir = kinds.everything
    ? (name: string) => PRETTIER_SKIPPED_DIRS.has(name)
    : (name: string) => name === "node_modules" || name.startsWith(".");
  const wanted = (f: string) =>
    (kinds.everything || !path.basename(f).startsWith(".")) && prettierTakes(f, takes);
  const target = req.target;
  const found = setup.targets.flatMap((t) =>
    fs.statSync(t).isDirectory()
      ? cache.tree.walk(t, skipDir).files.filter(wanted)
      : kinds.everything || extensions.includes(path.extname(t))
        ? [t]
        : [],
  );
  const files = [...new Set(found)].sort();
  const walk = scanTarget(cache, target, new Set());
  let note: string | undefined;
  let command = displayCommand("prettier", ["--check", "--", ...setup.targets]);
  const outcome = await runPerFile<PrettierFileValue, null>({
    cache,
    kind: `prettier --check ${req.all ? "(every kind)" : language} (first line)`,
    identity: {
      prettier: [setup.prettier.version, setup.prettier.source],
      // Plugins and shared configs come from node_modules: what is installed there.
      nodeModules: nodeModulesState(cache, directoryOf(target), setup.allowedRoot),
      configFile: setup.configFile ? relPath(setup.allowedRoot, setup.configFile) : null,
      // A config in JavaScript or TypeScript can read any file, and what it reads is not followed: its
      // entries are this project's alone (by its absolute root), never another project's or machine's.
      project: setup.configFile && /\.[cm]?[jt]s$/.test(setup.configFile) ? setup.allowedRoot : null,
      ignoreFiles: setup.ignoreFiles.map((f) => relPath(setup.allowedRoot, f)),
      configs: configIdentity(cache, walk, target, setup.allowedRoot, PRETTIER_CONFIGS, [
        setup.configFile ?? undefined,
        ...setup.ignoreFiles,
      ]),
    },
    root: setup.allowedRoot,
    files,
    isEmpty: (v) => v === undefined,
    encode: (v) => v,
    decode: (s) => s as PrettierFileValue,
    async run(subset) {
      const r = await runPrettier(ctx, req, language, true, setup, {
        withoutText: true,
        ...(subset && { files: [...subset] }),
      });
      note = r.note;
      command = r.command;
      const values = new Map<string, PrettierFileValue>();
      for (const f of r.result.ignored ?? []) values.set(f, "ignored");
      for (const f of r.result.failed) values.set(f.file, { failed: f.message });
      for (const c of r.result.changed) values.set(c.file, { changed: c.line ?? 1 });
      return { values, meta: null };
    },
  });
  const firstLines = new Map<string, number>();
  const failed: { file: string; message: string }[] = [];
  for (const f of outcome.files) {
    const v = outcome.values.get(f);
    if (typeof v !== "object") continue;
    if ("changed" in v) firstLines.set(f, v.changed);
    else failed.push({ file: f, message: v.failed });
  }
  const changed = [...firstLines.keys()];
  const checked = outcome.files.filter((f) => outcome.values.get(f) !== "ignored").length;
  return {
    formatted: changed.length === 0,
    unformatted_files: changed.map((f) => display(ctx, f)),
    command,
    notes: prettierNotes(ctx, setup, req.all ? "" : language, { checked, failed }, note),
    cache: markerOf(outcome),
    first_lines: firstLines,
    version: setup.prettier.version,
  };
}

function display(ctx: ToolContext, file: string): string {
  return relativeTo(ctx.config.cwd, file) || file;
}

function rewrites(ctx: ToolContext, changes: PrettierReply["changed"]): string {
  return unifiedDiff(
    changes.map((c) => ({ file: c.file, before: readSourceText(ctx.allowlist, c.file), after: c.after })),
    ctx.config.cwd,
    diffBudget(ctx.config.maxResultBytes),
  );
}

function prettierFor(language: string) {
  return {
    language,
    formatter: "prettier",
    async check(ctx: ToolContext, req: FormatRequest): Promise<FormatCheckOutcome> {
      const cache = req.diff ? undefined : resultCacheOf(ctx);
      if (cache) return cachedPrettierCheck(ctx, cache, req, language);
      const { result, notes, command, version } = await runPrettier(ctx, req, language, true);
      return {
        version,
        formatted: result.changed.length === 0,
        unformatted_files: result.changed.map((c) => display(ctx, c.file)),
        command,
        output: req.diff && result.changed.length ? rewrites(ctx, result.changed) : undefined,
        notes,
        first_lines: new Map(result.changed.map((c) => [c.file, c.line ?? 1])),
      };
    },
    async write(ctx: ToolContext, req: FormatRequest & { dryRun: boolean }): Promise<FormatWriteOutcome> {
      const { result, notes, command } = await runPrettier(ctx, req, language, req.dryRun);
      const diff = req.dryRun && result.changed.length ? rewrites(ctx, result.changed) : undefined;
      if (!req.dryRun)
        for (const c of result.changed) {
          const file = ctx.allowlist.resolve(c.file, { kind: "file", label: "formatted file" });
          rewriteSource(ctx.allowlist, file, readSourceText(ctx.allowlist, file), c.after);
        }
      return { changed_files: result.changed.map((c) => display(ctx, c.file)), command, diff, notes };
    },
  };
}

registerFormatter(prettierFor("javascript"), true);
registerFormatter(prettierFor("typescript"), true);
