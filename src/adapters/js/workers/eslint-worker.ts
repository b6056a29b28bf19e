/**
 * The warm ESLint worker: keeps ESLint instances (configs and plugins loaded) between requests.
 * Files are re-read on every request, so edits always show (typescript-eslint's type information too: its
 * caches are cleared before each lint, eslint-type-caches.ts). Nothing is written here: fixed text goes
 * back to the server, which writes inside its transaction.
 *
 * This is the worker's entry script (run as dist/adapters/js/workers/eslint-worker.js, warm.ts): it serves
 * the requests; its instances, lint runs, unsafe fixes, rule catalogue and config inputs are the eslint-*
 * modules beside it.
 */
import { recordingModules } from "./loaded-modules.js";
import fs from "node:fs";
import { reportLoadedFiles, serveWorker } from "../../../exec/worker-host.js";
import type {
  EslintFixParams,
  EslintRequestParams,
  WireConfigInputs,
  WireFileReport,
} from "../eslint-wire.js";
import { configFilePatterns, configModules } from "./eslint-config-inputs.js";
import { instance } from "./eslint-instances.js";
import { docsUrls, lintAround, report, withCorrections } from "./eslint-lint-run.js";
import { knownRules, ruleDocs, type WireRuleInfo } from "./eslint-rules.js";
import { applySuggestionPasses, loopOf } from "./eslint-suggestions.js";
import { clearTypeInformation } from "./eslint-type-caches.js";

// A change of a module the config loaded ends the worker: ESLint reloads a changed config file, but Node
// keeps the modules it imported.
reportLoadedFiles(configModules);

serveWorker({
  /**
   * What the config of `params` reads, once ESLint has loaded it for these files: the modules this process
   * loaded (ES modules through the loader hook, CommonJS from the require cache) besides the server's own
   * code and bundled packages, the files project code read so far, and its `files` patterns.
   */
  async configInputs(params: EslintRequestParams & { files: string[] }): Promise<WireConfigInputs> {
    const eslint = await instance(params, false);
    for (const file of params.files) await eslint.calculateConfigForFile(file);
    const modules = await configModules();
    const typescriptConfig = params.configFile !== null && /\.[cm]?ts$/.test(params.configFile);
    const incomplete = typescriptConfig
      ? "the ESLint config is TypeScript, which ESLint loads through jiti: the modules it imports cannot be listed"
      : params.configFile === null || recordingModules()
        ? undefined
        : "this Node.js has no module.register: the modules the ESLint config imports cannot be listed";
    return { modules, ...(incomplete && { incomplete }), patterns: await configFilePatterns(params) };
  },

  async rules(params: EslintRequestParams & { file: string }): Promise<string[]> {
    return (await knownRules(params)).names;
  },

  async explain(params: EslintRequestParams & { file: string; names: string[] }): Promise<WireRuleInfo[]> {
    const { config, core, names: known } = await knownRules(params);
    const plugins = config.plugins ?? {};
    const pluginRules = (prefix: string) =>
      Object.keys(plugins[prefix]?.rules ?? {}).map((r) => `${prefix}/${r}`);
    const all = () => known;
    return params.names.map((name): WireRuleInfo => {
      const plugin = name.replace(/\/$/, "");
      if (plugin !== "@" && plugins[plugin] && !core.has(name))
        return { name: plugin, kind: "category", rules: pluginRules(plugin) };
      const slash = name.lastIndexOf("/");
      const rule = slash > 0 ? plugins[name.slice(0, slash)]?.rules?.[name.slice(slash + 1)] : core.get(name);
      if (!rule) return { name, kind: "unknown", known: all() };
      const docs =
        slash > 0
          ? ruleDocs(params.cwd, plugins[name.slice(0, slash)], name.slice(slash + 1))
          : ruleDocs(params.cwd, { meta: { name: "eslint" } }, name);
      return {
        name,
        kind: "rule",
        meta: rule.meta ?? {},
        setting: config.rules?.[name],
        ...(docs && { docs }),
      };
    });
  },

  /** Inline code as if it were `file`: lint, or fix (the corrected text comes back as output). */
  async lintText(
    params: EslintFixParams & { file: string; code: string; fix: boolean },
  ): Promise<WireFileReport[]> {
    clearTypeInformation();
    const eslint = await instance(params, params.fix);
    const [r] = await eslint.lintText(params.code, { filePath: params.file });
    if (!r) return [];
    if (!params.fix) return [withCorrections({ ...r, source: params.code }, report(r))];
    const final = params.unsafe
      ? await applySuggestionPasses(eslint, r, params.holdBack ?? [], params.code, params.fixRules)
      : r;
    const text = final.output ?? params.code;
    return [withCorrections({ ...final, source: text }, report(final, text))];
  },

  /**
   * Whether the config gives any of these files type information (typescript-eslint's `project`,
   * `projectService` or `programs`): its findings then depend on other files, so the result cache
   * does not keep them per file.
   */
  async typeAware(params: EslintRequestParams & { files: string[] }): Promise<boolean> {
    const eslint = await instance(params, false);
    for (const file of params.files) {
      const options = (await eslint.calculateConfigForFile(file))?.languageOptions?.parserOptions;
      if (options && (options.project || options.projectService || options.programs)) return true;
    }
    return false;
  },

  async lint(params: EslintRequestParams): Promise<WireFileReport[]> {
    clearTypeInformation();
    const { results, errors } = await lintAround(params, false);
    const docs = await docsUrls(params, results);
    return results.map((r) => {
      const out = params.corrections ? withCorrections(r, report(r)) : report(r);
      for (const m of out.messages) {
        const url = m.rule_id ? docs.get(m.rule_id) : undefined;
        if (url) m.docs_url = url;
      }
      if (errors.has(r.filePath)) out.errors = errors.get(r.filePath);
      return out;
    });
  },

  async fix(params: EslintFixParams): Promise<WireFileReport[]> {
    clearTypeInformation();
    const eslint = await instance(params, true);
    const { results, errors } = await lintAround(params, true);
    const out: WireFileReport[] = [];
    for (const r of results) {
      const final = params.unsafe
        ? await applySuggestionPasses(eslint, r, params.holdBack ?? [], undefined, params.fixRules)
        : r;
      const original = final.output !== undefined ? fs.readFileSync(r.filePath, "utf8") : undefined;
      const loop = final.output !== undefined ? loopOf(final.messages, params.fixRules) : undefined;
      let file: WireFileReport;
      if (loop) {
        // Fixes that go back and forth: the file is left as it was, with the offenses it has.
        const [again] = await (
          await instance(params, false)
        ).lintText(original ?? "", { filePath: r.filePath });
        file = report(again ?? r);
        file.errors = [loop];
      } else {
        // What is left, with the corrections ESLint still offers, located in the fixed text.
        const text = final.output ?? fs.readFileSync(r.filePath, "utf8");
        file = withCorrections(
          { ...final, source: text },
          report(final, final.output !== original ? final.output : undefined),
        );
      }
      if (errors.has(r.filePath)) file.errors = [...(file.errors ?? []), ...(errors.get(r.filePath) ?? [])];
      out.push(file);
    }
    return out;
  },
});
