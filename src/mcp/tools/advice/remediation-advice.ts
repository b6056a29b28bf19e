import { createHash } from "node:crypto";
import os from "node:os";
import { z } from "zod";
import { defineTool, type ToolContext } from "../../../engine/tool.js";
import { ToolError } from "../../../errors.js";
import { isWithin } from "../../../paths/allowlist.js";
import { projectRootOf } from "../../../paths/project-root.js";
import { readTextIn } from "../../../paths/safe-fs.js";
import { displayPaths } from "../../../findings/display-path.js";
import type { DiagnosticAdvice } from "../../../policy/advisor.js";
import {
  buildPrompt,
  type AdviceFinding,
  type RerunCall,
  type Snippet,
} from "../../../policy/advice/prompt.js";
import { screenAdvice } from "../../../policy/advice/screen.js";
import { policyRuntime } from "../policy/runtime.js";
import { parseAdviceReply, type AdviceReply } from "../../../policy/advice/reply.js";
import { findProvider } from "../../../policy/advice/providers.js";
import { configuredProvider, runProvider } from "../../../policy/advice/run-provider.js";
import { newRequestId, writeAdviceTrace, type AdviceTrace } from "../../../policy/advice/traces.js";
import { refreshPolicy } from "../policy/runtime.js";
import { adviceIds, advisorOf, rerunFor } from "./shared.js";
import { FindingArg, fromSarif, fromTrace, type LocatedFinding } from "./finding-source.js";

/** Lines of context around a finding, and the most lines one snippet may hold. */
const CONTEXT_LINES = 3;
const MAX_SNIPPET_LINES = 60;
/** The only capability an advice request may ask for: reading the files it names. */
const GRANTABLE = new Set(["read"]);
const RAW_REPLY_KEPT = 16_384;

export const remediationAdviceTool = () =>
  defineTool({
    name: "remediation_advice",
    description: "A repair plan for one finding, from the approved provider or local bundle.",
    input: z.strictObject({
      finding: FindingArg.optional().describe("A finding"),
      sarif: z.record(z.string(), z.unknown()).optional().describe("Or a SARIF 2.1.0 log"),
      result_index: z.number().int().min(0).optional().describe("Its result, across runs"),
      trace_id: z.string().max(200).optional().describe("Or a retained trace"),
      files: z.array(z.string().max(4200)).max(10).optional().describe("path or path:start-end"),
      provider: z.string().max(50).optional().describe('The configured one, or "local"'),
      capabilities: z.array(z.string().max(50)).max(10).optional().describe('Only "read"'),
      hook_decisions: z.array(z.string().max(4000)).max(5).optional().describe("What hooks refused"),
    }),
    annotations: {
      title: "Remediation advice",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    traits: { advisory: true, reads_files: true, runs_tools: true, persists_traces: true },
    async handler(args, ctx) {
      await refreshPolicy(ctx);
      const trace: AdviceTrace = {
        request_id: newRequestId(),
        created_at: new Date().toISOString(),
        provider: "local",
        bundle_hash: advisorOf(ctx).bundleHash,
        policy_ids: [],
        principle_ids: [],
        skill_ids: [],
        files: [],
        failures: [],
      };
      let traceRoot = defaultTraceRoot(ctx);
      const finish = (): string | undefined => {
        if (!traceRoot) return undefined;
        try {
          return writeAdviceTrace(traceRoot, trace, {
            maxCount: ctx.config.traceMaxCount,
            maxBytes: ctx.config.traceMaxBytes,
          });
        } catch (err) {
          ctx.log.warn(`advice trace not written: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        }
      };
      try {
        const result = await advise(args, ctx, trace, (root) => (traceRoot = root));
        const file = finish();
        return { ...result, request_id: trace.request_id, ...(file ? { trace_file: file } : {}) };
      } catch (err) {
        trace.failures.push(err instanceof Error ? err.message : String(err));
        const file = finish();
        if (err instanceof ToolError)
          throw new ToolError(err.errorType, err.message, {
            ...err.extra,
            request_id: trace.request_id,
            ...(file ? { trace_file: file } : {}),
          });
        throw err;
      }
    },
  });

type Args = {
  finding?: z.infer<typeof FindingArg>;
  sarif?: Record<string, unknown>;
  result_index?: number;
  trace_id?: string;
  files?: string[];
  provider?: string;
  capabilities?: string[];
  hook_decisions?: string[];
};

async function advise(
  args: Args,
  ctx: ToolContext,
  trace: AdviceTrace,
  setTraceRoot: (root: string) => void,
) {
  // The provider asked for (or configured), so that a refused request's trace names it too.
  trace.provider = args.provider ?? ctx.config.adviceProvider ?? "local";
  refuseCapabilities(args.capabilities);
  const provider = pickProvider(ctx, args.provider);
  trace.provider = provider?.adapter.name ?? "local";
  const located = locate(ctx, args);
  const file = located.file
    ? ctx.allowlist.resolve(located.file, { kind: "file", label: "finding path" })
    : undefined;
  const display = displayPaths(
    file ?? ctx.allowlist.roots.effective[0] ?? ctx.config.cwd,
    ctx.allowlist.roots.effective,
  );
  if (file) {
    const allowed = ctx.allowlist.rootOf(file);
    if (allowed) setTraceRoot(projectRootOf(file, allowed));
  }
  const finding: AdviceFinding = {
    ...located.finding,
    path: file ? display.show(file) : located.finding.path,
  };
  trace.finding = { tool: finding.tool, rule_id: finding.rule_id, path: finding.path, line: finding.line };

  const advice = advisorOf(ctx).adviseDiagnostic({
    tool: finding.tool,
    rule: finding.rule_id,
    message: finding.message,
    path: finding.path,
  });
  Object.assign(trace, adviceIds(advice), { bundle_hash: advice.bundle_hash });

  const snippets = [
    ...(file && finding.line
      ? [snippetAt(ctx, file, finding.line, finding.end_line ?? finding.line, display.show(file))]
      : []),
    ...(args.files ?? []).map((spec) => snippetFor(ctx, spec, display.show)),
  ];
  trace.files = snippets.map(({ path, start_line, end_line }) => ({ path, start_line, end_line }));
  const rerun = rerunFor(finding.tool, finding.path);

  if (!provider) {
    const reply = localAdvice(finding, advice, rerun);
    trace.response = reply;
    return {
      success: true,
      provider: "local",
      ...reply,
      mapped: advice.mapped,
      bundle_hash: advice.bundle_hash,
    };
  }

  // A provider is asked only about what the bundle grounds: no policy, no advice.
  if (!advice.mapped || advice.policies.length === 0)
    throw new ToolError(
      "invalid_input",
      `no policy grounding for ${finding.tool} ${finding.rule_id} in bundle ${advice.bundle_hash}: ` +
        `${provider.adapter.name} is not asked (provider "local" answers without grounding)`,
    );
  const prompt = buildPrompt({
    request_id: trace.request_id,
    bundle_hash: advice.bundle_hash,
    finding,
    policies: advice.policies,
    principles: advice.principles ?? [],
    skills: advice.skills,
    snippets,
    rerun,
    hook_decisions: args.hook_decisions ?? [],
  });
  const bytes = Buffer.byteLength(prompt);
  trace.prompt_bytes = bytes;
  trace.prompt_sha256 = createHash("sha256").update(prompt).digest("hex");
  if (bytes > ctx.config.adviceMaxInputBytes)
    throw new ToolError(
      "invalid_input",
      `the advice prompt is ${bytes} bytes, over the ${ctx.config.adviceMaxInputBytes}-byte cap ` +
        "(--advice-max-input-bytes); ask with fewer or shorter file ranges",
    );

  // The provider's sandbox shows exactly the files the request names (read-only), nothing else of the roots.
  const requested = [
    ...(file && finding.line ? [file] : []),
    ...(args.files ?? []).map((s) => specFile(ctx, s)),
  ];
  const { run, argvShown } = await runProvider(provider, prompt, ctx.config, ctx.signal, requested);
  trace.exit = {
    executable: provider.executable,
    argv: argvShown,
    returncode: run.returncode,
    signal: run.signal,
    timed_out: run.timedOut,
    duration_ms: run.durationMs,
    stdout_bytes: run.stdoutBytes,
  };
  trace.raw_reply = run.stdout.slice(0, RAW_REPLY_KEPT);
  const name = provider.adapter.name;
  if (run.timedOut)
    throw new ToolError(
      "timeout",
      `${name} exceeded the ${ctx.config.adviceTimeout} s advice timeout and was killed with its process group`,
    );
  if (run.aborted) throw new ToolError("tool_error", `${name} was stopped: the call was cancelled`);
  if (run.returncode !== 0)
    throw new ToolError(
      "tool_error",
      `${name} exited ${run.returncode ?? run.signal}: ${run.stderr.trim().slice(0, 500)}`,
    );
  if (run.stdoutBytes > ctx.config.adviceMaxOutputBytes)
    throw new ToolError(
      "tool_error",
      `${name}'s reply is over the ${ctx.config.adviceMaxOutputBytes}-byte cap (--advice-max-output-bytes); it was not read`,
    );
  let text: string;
  try {
    text = provider.adapter.replyText(run.stdout);
  } catch (err) {
    throw new ToolError("tool_error", err instanceof Error ? err.message : String(err));
  }
  const parsed = parseAdviceReply(text);
  if (!parsed.ok) throw new ToolError("tool_error", `${name}: ${parsed.error}`);
  const known = new Set(ctx.engine.listTools().map((t) => t.name));
  if (!known.has(parsed.advice.rerun.tool))
    throw new ToolError(
      "tool_error",
      `${name}: reply's rerun names "${parsed.advice.rerun.tool}", which is not a tool of this server`,
    );
  // The same policies that guard the agent screen what it is told to do.
  const runtime = await policyRuntime(ctx);
  const root = ctx.allowlist.roots.effective[0] ?? ctx.config.cwd;
  const screened = await screenAdvice(parsed.advice, {
    bundle: runtime.bundleFor(file ?? root, ctx.allowlist),
    grounded: advice.policies.map((p) => p.policy_id),
    files: [
      ...(finding.path ? [finding.path] : []),
      ...snippets.map((sn) => sn.path),
      ...(typeof rerun.arguments.path === "string" ? [rerun.arguments.path] : []),
      ...(Array.isArray(rerun.arguments.files) ? (rerun.arguments.files as string[]) : []),
    ],
    site: { cwd: root, projectRoot: display.root, home: os.homedir() },
  });
  if (!screened.ok) {
    trace.response = parsed.advice;
    throw new ToolError(
      "tool_error",
      `${name}: the advice is refused${screened.policy_id ? ` (${screened.policy_id})` : ""}: ${screened.reason}`,
      screened.policy_id ? { policy_id: screened.policy_id } : {},
    );
  }
  trace.response = parsed.advice;
  return { success: true, provider: name, ...parsed.advice, mapped: true, bundle_hash: advice.bundle_hash };
}

function refuseCapabilities(asked: string[] | undefined): void {
  const refused = (asked ?? []).filter((c) => !GRANTABLE.has(c));
  if (refused.length)
    throw new ToolError(
      "invalid_input",
      `remediation_advice gives advice only: ${refused.join(", ")} cannot be granted (no write, git, shell or bypass; only "read")`,
    );
}

/** The configured provider (checked), or undefined for local advice; a different one asked for is refused. */
function pickProvider(ctx: ToolContext, asked: string | undefined) {
  if (asked === "local") return undefined;
  if (asked !== undefined && !findProvider(asked))
    throw new ToolError(
      "invalid_input",
      `unknown advice provider "${asked}" (claude, codex, gemini or local)`,
    );
  if (asked !== undefined && asked !== ctx.config.adviceProvider)
    throw new ToolError(
      "invalid_input",
      `advice provider ${asked} is not approved by the operator (configured: ${ctx.config.adviceProvider ?? "none"})`,
    );
  return configuredProvider(ctx.config, ctx.allowlist.roots.effective);
}

function locate(ctx: ToolContext, args: Args): LocatedFinding {
  const given = [args.finding, args.sarif, args.trace_id].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new ToolError("invalid_input", "give exactly one of finding, sarif (+ result_index) or trace_id");
  if (args.finding) return { finding: args.finding, file: args.finding.path };
  if (args.sarif) return fromSarif(args.sarif, args.result_index ?? 0);
  return fromTrace(ctx, args.trace_id as string, args.result_index ?? 0);
}

/** The allowed root holding the working directory, else the first: where a trace without a file goes. */
function defaultTraceRoot(ctx: ToolContext): string | undefined {
  const roots = ctx.allowlist.roots.effective;
  return roots.find((r) => isWithin(r, ctx.config.cwd)) ?? roots[0];
}

/** A canonical allowed file's text, read from its allowed root without following a swapped link. */
function readAllowed(ctx: ToolContext, file: string): string[] {
  const root = ctx.allowlist.rootOf(file);
  if (!root) throw new ToolError("path_validation", `${file} is outside the allowed paths`);
  const lines = readTextIn(root, file).split(/\r?\n/);
  // A final newline ends the last line; it does not start another.
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Lines first..last (1-based, clamped, at most MAX_SNIPPET_LINES) of a file's lines. */
function slice(lines: string[], first: number, last: number, shown: string): Snippet {
  const from = Math.max(1, Math.min(first, lines.length));
  const to = Math.max(from, Math.min(lines.length, last, from + MAX_SNIPPET_LINES - 1));
  return { path: shown, start_line: from, end_line: to, text: lines.slice(from - 1, to).join("\n") };
}

/** The finding's lines with a few around them. */
function snippetAt(ctx: ToolContext, file: string, start: number, end: number, shown: string): Snippet {
  return slice(readAllowed(ctx, file), start - CONTEXT_LINES, Math.max(start, end) + CONTEXT_LINES, shown);
}

const FILE_SPEC = /^(.*):(\d+)(?:-(\d+))?$/;

/** The file of a `path` or `path:start-end` spec, resolved through the allowlist. */
function specFile(ctx: ToolContext, spec: string): string {
  const m = FILE_SPEC.exec(spec);
  return ctx.allowlist.resolve(m ? (m[1] as string) : spec, { kind: "file", label: "files" });
}

/** `path` or `path:start-end`, resolved through the allowlist; a file without a range gives its first lines. */
function snippetFor(ctx: ToolContext, spec: string, show: (f: string) => string): Snippet {
  const m = FILE_SPEC.exec(spec);
  const file = specFile(ctx, spec);
  const start = m ? Number(m[2]) : 1;
  const end = m ? Number(m[3] ?? m[2]) : MAX_SNIPPET_LINES;
  if (end < start) throw new ToolError("invalid_input", `files: ${spec}: the range ends before it starts`);
  return slice(readAllowed(ctx, file), start, end, show(file));
}

/** Advice from the bundle alone, said to be local: no external agent reviewed anything. */
function localAdvice(finding: AdviceFinding, advice: DiagnosticAdvice, rerun: RerunCall): AdviceReply {
  const ids = adviceIds(advice);
  if (!advice.mapped)
    return {
      summary: `No policy in bundle ${advice.bundle_hash} maps ${finding.tool} ${finding.rule_id}; no grounded advice.`,
      ...ids,
      steps: [],
      rerun,
      risks: ["local advice: no external agent reviewed this finding"],
    };
  return {
    summary: advice.policies.map((p) => p.message).join(" "),
    ...ids,
    steps: [...advice.policies.map((p) => p.advice), ...advice.skills.flatMap((s) => s.steps)],
    rerun,
    risks: ["local advice: no external agent reviewed this finding"],
  };
}
