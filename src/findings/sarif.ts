/**
 * SARIF 2.1.0 from findings: one run per tool (a tool run twice in one call, prettier on JavaScript and on
 * TypeScript, is one run with an invocation each), results with relative locations under %SRCROOT% (the
 * project root of the call), fixes from corrections, partialFingerprints under `mcq/v1`, and the run's notes
 * and failures as toolExecutionNotifications. Every finding is a result: where a run passes GitHub code
 * scanning's limits, a notification says so (docs/sarif.md); nothing is left out here.
 */
import { pathToFileURL } from "node:url";
import { FINGERPRINT_KEY } from "./fingerprint.js";
import type { Finding, Severity } from "./model.js";
import {
  combineRuns,
  withGithubLimitNotes,
  type SarifLogLike,
  type SarifResult,
  type SarifRunLike,
} from "./sarif-log.js";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
export const SRCROOT = "%SRCROOT%";

export interface SarifRunInput {
  /** Tool name (ruff, eslint, mypy...). */
  tool: string;
  version?: string;
  informationUri: string;
  /** Findings with `path` and `fingerprint` set (see views.ts). */
  findings: readonly Finding[];
  /** The project root relative paths are under. */
  root: string;
  /** Whether the tool ran to the end (findings or not). */
  executionSuccessful: boolean;
  notes?: readonly string[];
  /** A tool failure, reported as an error notification. */
  crash?: string;
  commandLine?: string;
}

type SarifLevel = "error" | "warning" | "note";
const LEVEL: Record<Severity, SarifLevel> = { error: "error", warning: "warning", info: "note" };

export const TOOL_URIS: Record<string, string> = {
  ruff: "https://docs.astral.sh/ruff/",
  flake8: "https://flake8.pycqa.org/",
  eslint: "https://eslint.org/",
  tsc: "https://www.typescriptlang.org/",
  mypy: "https://mypy-lang.org/",
  pyright: "https://github.com/microsoft/pyright",
  ty: "https://docs.astral.sh/ty/",
  bandit: "https://bandit.readthedocs.io/",
  "pip-audit": "https://github.com/pypa/pip-audit",
  "npm-audit": "https://docs.npmjs.com/cli/commands/npm-audit",
  pytest: "https://docs.pytest.org/",
  prettier: "https://prettier.io/",
  black: "https://black.readthedocs.io/",
  "markdown-links": "https://github.com/",
};

const uris = new Map<string, string>();

/** A display path as a relative URI reference (each segment percent-encoded), or a file: URI. */
function artifactLocation(shown: string): { uri: string; uriBaseId?: string } {
  let uri = uris.get(shown);
  if (uri === undefined) {
    uri = shown.startsWith("/")
      ? pathToFileURL(shown).href
      : shown.split("/").map(encodeURIComponent).join("/");
    if (uris.size > 10_000) uris.clear();
    uris.set(shown, uri);
  }
  return shown.startsWith("/") ? { uri } : { uri, uriBaseId: SRCROOT };
}

function region(f: { line: number; column: number; end_line?: number; end_column?: number }) {
  const r: Record<string, number> = { startLine: f.line };
  if (f.column > 0) r.startColumn = f.column;
  if (f.end_line !== undefined && f.end_line >= f.line) r.endLine = f.end_line;
  if (f.end_column !== undefined && f.end_column > 0) r.endColumn = f.end_column;
  return r;
}

function result(f: Finding, ruleIndex: number): SarifResult {
  const shown = f.path ?? f.file;
  const location = shown
    ? [
        {
          physicalLocation: {
            artifactLocation: artifactLocation(shown),
            ...(f.line >= 1 ? { region: region(f) } : {}),
          },
        },
      ]
    : undefined;
  const out: SarifResult = {
    ruleId: f.rule_id || f.tool,
    ruleIndex,
    level: LEVEL[f.severity],
    message: { text: f.message || f.rule_id || f.tool },
  };
  if (location) out.locations = location;
  if (f.fingerprint) out.partialFingerprints = { [FINGERPRINT_KEY]: f.fingerprint };
  if (f.correction?.edits.length && shown)
    out.fixes = [
      {
        description: { text: f.correction.description ?? (f.correction.safe ? "safe fix" : "unsafe fix") },
        artifactChanges: [
          {
            artifactLocation: artifactLocation(shown),
            replacements: f.correction.edits.map((e) => ({
              deletedRegion: {
                startLine: e.line,
                startColumn: e.column,
                endLine: e.end_line,
                endColumn: e.end_column,
              },
              insertedContent: { text: e.text },
            })),
          },
        ],
      },
    ];
  const props: Record<string, unknown> = {};
  if (f.level) props.toolLevel = f.level;
  if (f.category) props.category = f.category;
  if (f.correction) props.fixSafety = f.correction.safe ? "safe" : "unsafe";
  if (Object.keys(props).length) out.properties = props;
  return out;
}

function notification(text: string, level: SarifLevel) {
  return { level, message: { text } };
}

/** Longest rule description taken from a message (GitHub shows it in the rule's panel). */
const MAX_DESCRIPTION_CHARS = 1000;

/** Markdown with its control characters escaped (a message is the tool's text, not ours). */
const escapeMarkdown = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);

/**
 * A rule's descriptor as GitHub code scanning requires it (a `fullDescription` and `help`, rule GH2012 of
 * Microsoft's SARIF validator): the tool reports no rule text of its own here, so the description is the
 * rule's first message (for most linters, what the rule checks, with this instance's names), and the help
 * points at the rule's documentation, or the tool's when the rule has none.
 */
export function ruleDescriptor(
  tool: string,
  rule: { id: string; level: SarifLevel; helpUri?: string; message: string },
  informationUri: string,
) {
  const firstLine = rule.message.split("\n")[0]?.trim() || rule.id;
  const description =
    firstLine.length > MAX_DESCRIPTION_CHARS
      ? `${firstLine.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`
      : firstLine;
  const docs = rule.helpUri ?? informationUri;
  const what = rule.helpUri ? `the documentation of ${rule.id}` : `${tool}'s documentation`;
  return {
    id: rule.id,
    shortDescription: { text: `${tool} ${rule.id}` },
    fullDescription: { text: description },
    ...(rule.helpUri ? { helpUri: rule.helpUri } : {}),
    help: {
      // One full stop after a description that ends with its own (ESLint's messages do).
      text: `${tool} reports ${rule.id}: ${description}${/[.!?…]$/.test(description) ? "" : "."} See ${what}: ${docs}`,
      markdown: `${escapeMarkdown(tool)} reports **${escapeMarkdown(rule.id)}**: ${escapeMarkdown(description)}\n\nSee [${escapeMarkdown(what)}](${docs}).`,
    },
    defaultConfiguration: { level: rule.level },
  };
}

/** One SARIF run. Rules are the distinct rule ids, each at the most severe level it was reported with. */
export function sarifRun(input: SarifRunInput): SarifRunLike {
  const rules: { id: string; level: SarifLevel; helpUri?: string; rank: number; message: string }[] = [];
  const index = new Map<string, number>();
  const order: Record<SarifLevel, number> = { note: 0, warning: 1, error: 2 };
  const results = input.findings.map((f) => {
    const id = f.rule_id || f.tool;
    let i = index.get(id);
    const level = LEVEL[f.severity];
    if (i === undefined) {
      i = rules.length;
      index.set(id, i);
      rules.push({ id, level, helpUri: f.docs_url, rank: order[level], message: f.message || id });
    } else {
      const rule = rules[i]!;
      if (order[level] > rule.rank) Object.assign(rule, { level, rank: order[level] });
      rule.helpUri ??= f.docs_url;
    }
    return result(f, i);
  });
  const notifications = [
    ...(input.notes ?? []).map((n) => notification(n, "note")),
    ...(input.crash ? [notification(input.crash, "error")] : []),
  ];
  return {
    tool: {
      driver: {
        name: input.tool,
        ...(input.version ? { semanticVersion: input.version } : {}),
        informationUri: input.informationUri,
        rules: rules.map((r) => ruleDescriptor(input.tool, r, input.informationUri)),
      },
    },
    invocations: [
      {
        executionSuccessful: input.executionSuccessful,
        ...(input.commandLine ? { commandLine: input.commandLine } : {}),
        ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
      },
    ],
    originalUriBaseIds: {
      [SRCROOT]: { uri: pathToFileURL(input.root.endsWith("/") ? input.root : `${input.root}/`).href },
    },
    columnKind: "utf16CodeUnits",
    results,
  };
}

/** A SARIF 2.1.0 log of the given runs: one run per tool, GitHub's limits said where a run passes them. */
export function sarifLog(runs: readonly SarifRunInput[]): SarifLogLike {
  return withGithubLimitNotes({
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: combineRuns(runs.map(sarifRun)),
  }).log;
}
