/**
 * The warm Prettier worker: walks the target (skipping node_modules and hidden directories), honours
 * the ignore files, and formats each file in memory. Nothing is written here.
 */
import fs from "node:fs";
import path from "node:path";
import { serveWorker } from "../../../exec/worker-host.js";
import type { PrettierChange, PrettierParams, PrettierReply, PrettierSupport } from "../prettier-wire.js";
import { firstChangedLine } from "../../../findings/format-findings.js";
import { loadModule } from "./load-module.js";
import { PRETTIER_SKIPPED_DIRS } from "../prettier-scope.js";
import { prettierTakes } from "../prettier-files.js";
import { PACKAGE_ROOT } from "../../../package-root.js";

/** An empty Prettier config (`{}`): Prettier's defaults, what a project without a config file gets. */
const NO_CONFIG = path.join(PACKAGE_ROOT, "data", "prettier", "no-config.json");

interface PrettierApi {
  format(source: string, options: Record<string, unknown>): Promise<string>;
  resolveConfig(file: string, options: Record<string, unknown>): Promise<Record<string, unknown> | null>;
  getFileInfo(
    file: string,
    options: Record<string, unknown>,
  ): Promise<{ ignored: boolean; inferredParser: string | null }>;
  clearConfigCache?(): Promise<void>;
  getSupportInfo(): Promise<{
    languages: { extensions?: string[]; filenames?: string[]; interpreters?: string[] }[];
  }>;
}

function walk(dir: string, params: PrettierParams, out: string[]): void {
  const everything = params.everything;
  const kinds = everything && {
    extensions: params.extensions,
    filenames: new Set(everything.filenames),
    interpreters: everything.interpreters ?? [],
  };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (
      everything
        ? PRETTIER_SKIPPED_DIRS.has(entry.name)
        : entry.name === "node_modules" || entry.name.startsWith(".")
    )
      continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, params, out);
    else if (
      entry.isFile() &&
      (kinds ? prettierTakes(full, kinds) : params.extensions.includes(path.extname(entry.name)))
    )
      out.push(full);
  }
}

/** What this Prettier formats: its languages' extensions and file names. */
async function support(params: { entry: string }): Promise<PrettierSupport> {
  const prettier = (await loadModule(params.entry)) as PrettierApi;
  const { languages } = await prettier.getSupportInfo();
  return {
    extensions: [...new Set(languages.flatMap((l) => l.extensions ?? []))].sort(),
    filenames: [...new Set(languages.flatMap((l) => l.filenames ?? []))].sort(),
    interpreters: [...new Set(languages.flatMap((l) => l.interpreters ?? []))].sort(),
  };
}

async function format(params: PrettierParams): Promise<PrettierReply> {
  const prettier = (await loadModule(params.entry)) as PrettierApi;
  // Config files are watched by the pool; a config edited in place must still be re-read.
  await prettier.clearConfigCache?.();
  const found: string[] = [];
  if (params.files) found.push(...params.files);
  else
    for (const target of params.targets)
      if (fs.statSync(target).isDirectory()) walk(target, params, found);
      else if (params.everything || params.extensions.includes(path.extname(target))) found.push(target);
  const files = [...new Set(found)].sort();
  const changed: PrettierChange[] = [];
  const failed: PrettierReply["failed"] = [];
  const ignored: string[] = [];
  let checked = 0;
  for (const file of files) {
    const info = await prettier.getFileInfo(file, { ignorePath: params.ignoreFiles, withNodeModules: false });
    if (info.ignored || !info.inferredParser) {
      ignored.push(file);
      continue;
    }
    checked++;
    // As Prettier's CLI: .editorconfig's settings (indent, line width, end of line) under the config
    // file's, and alone when there is none. "None" is an empty config of ours, so that Prettier does not
    // search for one itself beyond where the plan looked (findPrettierConfig, within the allowed root).
    const options =
      (await prettier.resolveConfig(file, {
        config: params.configFile ?? NO_CONFIG,
        editorconfig: true,
      })) ?? {};
    const before = fs.readFileSync(file, "utf8");
    try {
      const after = await prettier.format(before, { ...options, filepath: file });
      if (after !== before)
        changed.push({ file, after: params.withoutText ? "" : after, line: firstChangedLine(before, after) });
    } catch (err) {
      failed.push({ file, message: (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "" });
    }
  }
  return { changed, failed, checked, ignored };
}

serveWorker({ format, support });
