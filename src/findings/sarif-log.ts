/**
 * Whole SARIF logs, as the project writes them: runs of one tool combined into one run (GitHub code scanning
 * rejects an upload with two runs of one tool and category), GitHub's upload limits checked and said in the
 * log itself, and an explicit cap on results per run. Pure functions over plain SARIF objects; the writer of
 * every SARIF the project emits (tool results, traces, `check --sarif`, merged logs) goes through them.
 */

/* The parts of SARIF read and written here; everything else is carried as it is. */
export interface ArtifactLocation {
  uri: string;
  uriBaseId?: string;
  [key: string]: unknown;
}
export interface SarifResult {
  ruleId?: string;
  ruleIndex?: number;
  level?: string;
  message: { text: string; [key: string]: unknown };
  locations?: {
    physicalLocation?: { artifactLocation?: ArtifactLocation; region?: Record<string, number> };
    [key: string]: unknown;
  }[];
  fixes?: {
    artifactChanges?: { artifactLocation: ArtifactLocation; [key: string]: unknown }[];
    [key: string]: unknown;
  }[];
  [key: string]: unknown;
}
export interface SarifRule {
  id: string;
  helpUri?: string;
  defaultConfiguration?: { level?: string };
  [key: string]: unknown;
}
export interface SarifNotification {
  level?: string;
  message: { text: string };
  [key: string]: unknown;
}
export interface SarifInvocation {
  executionSuccessful: boolean;
  toolExecutionNotifications?: SarifNotification[];
  [key: string]: unknown;
}
export interface SarifRunLike {
  tool: { driver: { name: string; rules?: SarifRule[]; [key: string]: unknown }; [key: string]: unknown };
  invocations?: SarifInvocation[];
  originalUriBaseIds?: Record<string, { uri: string }>;
  automationDetails?: { id?: string; [key: string]: unknown };
  results?: SarifResult[];
  [key: string]: unknown;
}
export interface SarifLogLike {
  $schema?: string;
  version: string;
  runs: SarifRunLike[];
  [key: string]: unknown;
}

/**
 * GitHub code scanning's limits on one upload ("SARIF support for code scanning", "SARIF results exceed
 * limits"): past them the upload is refused or results are dropped on GitHub's side.
 */
export const GITHUB_LIMITS = {
  runsPerFile: 20,
  resultsPerRun: 25_000,
  rulesPerRun: 25_000,
  locationsPerResult: 1_000,
  /** The upload, gzip-compressed. */
  gzipBytes: 10 * 1024 * 1024,
} as const;

/** GitHub's identity of a run: its tool and its category (automationDetails.id). */
export function runIdentity(run: SarifRunLike): string {
  return `${run.tool.driver.name}\0${run.automationDetails?.id ?? ""}`;
}

/**
 * Members that hold indexes other members point into (artifacts by `artifactLocation.index`, rules of tool
 * extensions, taxonomies...): a run with any of them is never combined with another, whose indexes would
 * then point at the wrong entries.
 */
const INDEXED_MEMBERS = [
  "artifacts",
  "logicalLocations",
  "threadFlowLocations",
  "graphs",
  "taxonomies",
  "translations",
  "policies",
  "addresses",
  "webRequests",
  "webResponses",
  "specialLocations",
];
const combinable = (run: SarifRunLike) =>
  !INDEXED_MEMBERS.some((k) => Array.isArray(run[k]) && (run[k] as unknown[]).length > 0) &&
  !(Array.isArray(run.tool.extensions) && run.tool.extensions.length > 0);

/** Runs of one tool as one run: rules united (re-indexed by id), results and invocations concatenated. */
function combine(runs: readonly SarifRunLike[]): SarifRunLike {
  const first = runs[0]!;
  if (runs.length === 1) return first;
  const rules: SarifRule[] = [];
  const index = new Map<string, number>();
  const results: SarifResult[] = [];
  for (const run of runs) {
    const own = run.tool.driver.rules ?? [];
    const ownIndex = new Map<string, SarifRule>();
    for (const r of own) if (!ownIndex.has(r.id)) ownIndex.set(r.id, r);
    for (const r of run.results ?? []) {
      const rule =
        r.ruleIndex !== undefined ? own[r.ruleIndex] : r.ruleId ? ownIndex.get(r.ruleId) : undefined;
      if (!rule) {
        const { ruleIndex: _dropped, ...rest } = r;
        results.push(rest);
        continue;
      }
      let i = index.get(rule.id);
      if (i === undefined) {
        i = rules.push(rule) - 1;
        index.set(rule.id, i);
      }
      results.push({ ...r, ruleIndex: i });
    }
  }
  const invocations: SarifInvocation[] = [];
  for (const r of runs) for (const inv of r.invocations ?? []) invocations.push(inv);
  return {
    ...first,
    tool: { ...first.tool, driver: { ...first.tool.driver, rules } },
    ...(invocations.length ? { invocations } : {}),
    results,
  };
}

/**
 * One run per tool and category: runs that share both are combined into one (in the order first seen);
 * runs that cannot be combined (they index artifacts or extensions) get categories of their own instead
 * (`<category>/<tool>-<n>`), which GitHub accepts side by side.
 */
export function combineRuns(runs: readonly SarifRunLike[]): SarifRunLike[] {
  const byIdentity = new Map<string, SarifRunLike[]>();
  for (const run of runs) {
    const key = runIdentity(run);
    const list = byIdentity.get(key);
    if (list) list.push(run);
    else byIdentity.set(key, [run]);
  }
  const out: SarifRunLike[] = [];
  for (const group of byIdentity.values()) {
    const together = group.filter(combinable);
    const apart = group.filter((r) => !combinable(r));
    // The first of the group keeps the category; every other run gets one of its own.
    const kept = together.length ? combine(together) : apart.shift()!;
    out.push(kept);
    apart.forEach((run, i) => {
      const base = (run.automationDetails?.id ?? "").replace(/\/$/, "");
      const id = `${base ? `${base}/` : ""}${run.tool.driver.name}-${i + 2}/`;
      out.push({ ...run, automationDetails: { ...run.automationDetails, id } });
    });
  }
  return out;
}

/** The run with a notification added to its first invocation (one is created when it has none). */
export function withRunNotification(run: SarifRunLike, note: SarifNotification): SarifRunLike {
  const [first, ...rest] = run.invocations?.length ? run.invocations : [{ executionSuccessful: true }];
  return {
    ...run,
    invocations: [
      { ...first!, toolExecutionNotifications: [...(first!.toolExecutionNotifications ?? []), note] },
      ...rest,
    ],
  };
}

export interface LimitNote {
  /** The run it is about; undefined for the whole log. */
  run?: number;
  tool?: string;
  text: string;
}

/** Where a log goes past GitHub's limits on an upload (the compressed size is measured by the writer). */
export function githubLimitNotes(log: SarifLogLike): LimitNote[] {
  const notes: LimitNote[] = [];
  const L = GITHUB_LIMITS;
  if (log.runs.length > L.runsPerFile)
    notes.push({
      text: `${log.runs.length} runs: GitHub code scanning accepts at most ${L.runsPerFile} runs per upload (split the log, e.g. one check per language with --only)`,
    });
  log.runs.forEach((run, i) => {
    const tool = run.tool.driver.name;
    const results = run.results?.length ?? 0;
    if (results > L.resultsPerRun)
      notes.push({
        run: i,
        tool,
        text: `${tool}: ${results} results in one run: GitHub code scanning accepts at most ${L.resultsPerRun} results per run (and shows the 5,000 most severe); the log holds all of them (--sarif-max-results ${L.resultsPerRun} keeps the most severe ${L.resultsPerRun})`,
      });
    const rules = run.tool.driver.rules?.length ?? 0;
    if (rules > L.rulesPerRun)
      notes.push({
        run: i,
        tool,
        text: `${tool}: ${rules} rules in one run: GitHub code scanning accepts at most ${L.rulesPerRun}`,
      });
    let crowded = 0;
    for (const r of run.results ?? []) if ((r.locations?.length ?? 0) > L.locationsPerResult) crowded++;
    if (crowded)
      notes.push({
        run: i,
        tool,
        text: `${tool}: ${crowded} results with more than ${L.locationsPerResult} locations: GitHub code scanning keeps the first ${L.locationsPerResult}`,
      });
  });
  return notes;
}

/** Marks the notifications githubLimitNotes adds, so a later pass (a merge) replaces them instead of doubling them. */
export const LIMIT_NOTE_PROPERTY = "mcp-code-quality/github-limit";

/**
 * The log with each note in the toolExecutionNotifications of its run's first invocation (log-wide notes:
 * in every run); notes of an earlier pass are replaced.
 */
export function withLimitNotes(log: SarifLogLike, notes: readonly LimitNote[]): SarifLogLike {
  const stale = (n: SarifNotification) =>
    (n.properties as Record<string, unknown> | undefined)?.[LIMIT_NOTE_PROPERTY];
  return {
    ...log,
    runs: log.runs.map((run, i) => {
      const hadStale = run.invocations?.some((inv) => inv.toolExecutionNotifications?.some(stale));
      const clean: SarifRunLike = hadStale
        ? {
            ...run,
            invocations: run.invocations!.map((inv) => {
              const kept = inv.toolExecutionNotifications?.filter((n) => !stale(n));
              const { toolExecutionNotifications: _old, ...rest } = inv;
              return kept?.length ? { ...rest, toolExecutionNotifications: kept } : rest;
            }),
          }
        : run;
      return notes
        .filter((n) => n.run === undefined || n.run === i)
        .reduce(
          (r, n) =>
            withRunNotification(r, {
              level: "warning",
              message: { text: n.text },
              properties: { [LIMIT_NOTE_PROPERTY]: true },
            }),
          clean,
        );
    }),
  };
}

/** The log with GitHub's limits checked and each one it passes said in its runs. */
export function withGithubLimitNotes(log: SarifLogLike): { log: SarifLogLike; notes: LimitNote[] } {
  const notes = githubLimitNotes(log);
  return { log: withLimitNotes(log, notes), notes };
}

const SEVERITY: Record<string, number> = { error: 3, warning: 2, note: 1, none: 0 };

export interface ResultCut {
  run: number;
  tool: string;
  kept: number;
  total: number;
}

/**
 * At most `max` results per run, asked for (`--sarif-max-results`): the most severe are kept (errors, then
 * warnings, then notes; in their order within a level), and the run says in a notification how many were
 * left out. Rules stay as they are (their indexes hold).
 */
export function limitResultsPerRun(log: SarifLogLike, max: number): { log: SarifLogLike; cuts: ResultCut[] } {
  const cuts: ResultCut[] = [];
  const runs = log.runs.map((run, i) => {
    const results = run.results ?? [];
    if (results.length <= max) return run;
    const ranked = results
      .map((r, at) => ({ r, at, s: SEVERITY[r.level ?? "warning"] ?? 2 }))
      .sort((a, b) => b.s - a.s || a.at - b.at)
      .slice(0, max)
      .sort((a, b) => a.at - b.at)
      .map((x) => x.r);
    const tool = run.tool.driver.name;
    cuts.push({ run: i, tool, kept: max, total: results.length });
    return withRunNotification(
      { ...run, results: ranked },
      {
        level: "warning",
        message: {
          text: `${results.length - max} of ${results.length} results left out: --sarif-max-results ${max} keeps the most severe ${max}`,
        },
      },
    );
  });
  return { log: { ...log, runs }, cuts };
}
