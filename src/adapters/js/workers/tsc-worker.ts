/**
 * The warm TypeScript worker: one semantic-diagnostics builder program per tsconfig. Each request
 * re-reads the config's file list, re-parses only source files whose size or mtime changed, and
 * re-checks only files affected by the change (the builder keeps the rest of the diagnostics). The
 * first request of a config is answered by the plain program, as `tsc` does, and the builder is made
 * from it right after.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type * as TS from "typescript";
import { serveWorker } from "../../../exec/worker-host.js";
import { WorkerHandlerError } from "../../../exec/worker-protocol.js";
import type { TscDiagnostic, TscParams, TscReply } from "../tsc-wire.js";
import { takeCodeCacheMisses } from "./code-cache.js";
import { loadModule } from "./load-module.js";

interface ProjectState {
  builder?: TS.SemanticDiagnosticsBuilderProgram;
  sources: Map<string, { stamp: string; file: TS.SourceFile }>;
}

const projects = new Map<string, ProjectState>();

/**
 * The config files of the program's project references (a referenced config that is not there too: tsc
 * reports it, and its appearing changes the answer), of theirs, and the configs each extends: read by
 * the run as its own config is (a referenced project's `outDir` decides which declaration file answers).
 */
function referencedConfigs(
  ts: typeof TS,
  references: readonly TS.ProjectReference[] | undefined,
  resolved: readonly (TS.ResolvedProjectReference | undefined)[] | undefined,
  out = new Set<string>(),
  seen = new Set<TS.ResolvedProjectReference>(),
): Set<string> {
  for (const r of references ?? []) out.add(path.resolve(ts.resolveProjectReferencePath(r)));
  for (const ref of resolved ?? []) {
    // A circular reference (tsc reports it) is walked once.
    if (!ref || seen.has(ref)) continue;
    seen.add(ref);
    const config = ref.sourceFile as TS.TsConfigSourceFile;
    for (const f of [config.fileName, ...(config.extendedSourceFiles ?? [])]) out.add(path.resolve(f));
    referencedConfigs(ts, ref.commandLine.projectReferences, ref.references, out, seen);
  }
  return out;
}

function stampOf(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** A compiler host that hands back the same SourceFile for an unchanged file, so the program is reused. */
function cachingHost(ts: typeof TS, options: TS.CompilerOptions, state: ProjectState): TS.CompilerHost {
  const host = ts.createCompilerHost(options);
  // As tsc does (TypeScript 5.3+): JSDoc is parsed only where it can carry type errors. The API's
  // default parses all of it, which made parsing the 200-file bench project (lib.dom.d.ts is full of
  // JSDoc) about 30% slower than tsc's, and the first check about 18% slower.
  if (ts.JSDocParsingMode) host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    const stamp = stampOf(fileName);
    if (stamp === undefined) return undefined;
    const mode =
      typeof languageVersionOrOptions === "object"
        ? `${languageVersionOrOptions.languageVersion}:${languageVersionOrOptions.impliedNodeFormat}`
        : String(languageVersionOrOptions);
    const key = `${mode}\0${fileName}`;
    const hit = state.sources.get(key);
    if (hit && hit.stamp === stamp) return hit.file;
    const file = read(fileName, languageVersionOrOptions, onError, shouldCreate);
    if (!file) return undefined;
    // The builder compares versions to know what changed.
    (file as { version?: string }).version = crypto.createHash("sha1").update(file.text).digest("hex");
    state.sources.set(key, { stamp, file });
    return file;
  };
  return host;
}

function category(ts: typeof TS, c: TS.DiagnosticCategory): TscDiagnostic["category"] {
  if (c === ts.DiagnosticCategory.Error) return "error";
  if (c === ts.DiagnosticCategory.Warning) return "warning";
  return "info";
}

function toWire(ts: typeof TS, d: TS.Diagnostic): TscDiagnostic {
  const out: TscDiagnostic = {
    file: d.file?.fileName ?? null,
    line: 0,
    column: 0,
    code: d.code,
    category: category(ts, d.category),
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  };
  if (d.file && d.start !== undefined) {
    const start = d.file.getLineAndCharacterOfPosition(d.start);
    const end = d.file.getLineAndCharacterOfPosition(d.start + (d.length ?? 0));
    out.line = start.line + 1;
    out.column = start.character + 1;
    out.end_line = end.line + 1;
    out.end_column = end.character + 1;
  }
  return out;
}

/** What both a Program and a builder answer. */
interface DiagnosticsSource {
  getConfigFileParsingDiagnostics(): readonly TS.Diagnostic[];
  getOptionsDiagnostics(): readonly TS.Diagnostic[];
  getGlobalDiagnostics(): readonly TS.Diagnostic[];
  getSyntacticDiagnostics(): readonly TS.Diagnostic[];
  getSemanticDiagnostics(): readonly TS.Diagnostic[];
  getDeclarationDiagnostics(): readonly TS.Diagnostic[];
}

/**
 * The diagnostics `tsc --noEmit` reports, gathered as it gathers them (its emitFilesAndReportErrors): the
 * options, global and semantic ones only when there is no syntax error, the declaration ones only when
 * declarations are asked for and nothing came before; then sorted and deduplicated. The builder of a warm
 * check can hand back a diagnostic more than once (three TS2451 of 1,974 were listed twice on the second
 * call over an unchanged project); deduplicated, a warm check lists what a cold one and tsc do.
 */
function asTscReports(ts: typeof TS, from: DiagnosticsSource, options: TS.CompilerOptions): TS.Diagnostic[] {
  const all = [...from.getConfigFileParsingDiagnostics()];
  const configDiagnostics = all.length;
  all.push(...from.getSyntacticDiagnostics());
  if (all.length === configDiagnostics) {
    all.push(...from.getOptionsDiagnostics(), ...from.getGlobalDiagnostics());
    if (all.length === configDiagnostics) all.push(...from.getSemanticDiagnostics());
    if (options.noEmit && (options.declaration || options.composite) && all.length === configDiagnostics)
      all.push(...from.getDeclarationDiagnostics());
  }
  return [...ts.sortAndDeduplicateDiagnostics(all)];
}

async function check(params: TscParams): Promise<TscReply> {
  const ts = (await loadModule(params.entry, { codeCache: true })) as typeof TS;
  let state = projects.get(params.configFile);
  if (!state) {
    state = { sources: new Map() };
    projects.set(params.configFile, state);
  }
  if (!ts.sys.fileExists(params.configFile))
    throw new WorkerHandlerError("invalid_input", `cannot read ${params.configFile}`);
  // Re-read every time: files added or removed under `include` must show up.
  const source = ts.readJsonConfigFile(params.configFile, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonSourceFileConfigFileContent(
    source,
    ts.sys,
    path.dirname(params.configFile),
    { noEmit: true },
    params.configFile,
  );
  const host = cachingHost(ts, parsed.options, state);
  // A referenced project is read from its sources, as the editor reads it, not from its built declarations:
  // `tsc -p` of a project whose references were never built (a fresh clone) reports each import of them as
  // TS6305 where `tsc -b` builds them first. Each referenced project is checked by a run of its own.
  (host as { useSourceOfProjectReferenceRedirect?: () => boolean }).useSourceOfProjectReferenceRedirect =
    () => true;
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    host,
    oldProgram: state.builder?.getProgram(),
    configFileParsingDiagnostics: parsed.errors,
  });
  let answering: DiagnosticsSource = program;
  if (state.builder) {
    state.builder = ts.createSemanticDiagnosticsBuilderProgram(program, host, state.builder, parsed.errors);
    answering = state.builder;
  } else {
    // The first check of a config asks the program itself, as tsc does; the builder (its file reference
    // graph, for the incremental checks that follow) is made from the same program once the answer is
    // out, before the next request is read, and reuses the diagnostics the program has cached.
    const first = state;
    setImmediate(() => {
      first.builder ??= ts.createSemanticDiagnosticsBuilderProgram(program, host, undefined, parsed.errors);
      first.builder.getSemanticDiagnostics();
    });
  }
  const diagnostics = asTscReports(ts, answering, parsed.options);
  // A bundle loaded without the server's code cache: the server has it made for the next fresh worker.
  const missed = takeCodeCacheMisses();
  return {
    diagnostics: diagnostics.map((d) => toWire(ts, d)),
    rootFiles: parsed.fileNames.length,
    extendedConfigs: [
      ...new Set([
        ...(source.extendedSourceFiles ?? []),
        ...referencedConfigs(ts, parsed.projectReferences, program.getResolvedProjectReferences()),
      ]),
    ],
    sourceFiles: program.getSourceFiles().map((f) => path.resolve(f.fileName)),
    includeDirs: Object.keys(parsed.wildcardDirectories ?? {}).map((d) => path.resolve(d)),
    ...(missed.length ? { codeCacheMissed: missed } : {}),
  };
}

serveWorker({ check });
