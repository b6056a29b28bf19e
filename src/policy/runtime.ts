/**
 * The policy bundles of one server: the shipped bundle with each allowed root's project policy
 * (`.mcp-code-quality/policy.yaml`) applied. Compiled at start, and again whenever a project's policy file
 * changes (its text is read and hashed on every call), so the MCP answers, the hooks and CI answer from the
 * same bundle hash at every moment. Command and edit checks run in worker threads with a deadline
 * (worker-pool.ts). The advisor the other tools use (POLICY_ADVISOR_SERVICE) answers from the first root's
 * current bundle.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Allowlist } from "../paths/allowlist.js";
import { POLICY_ADVISOR_SERVICE, type PolicyAdvisor } from "./advisor.js";
import type { Bundle, CheckOutcome } from "./bundle.js";
import type { CheckSite, CommandCheck, EditCheckOptions } from "./checks.js";
import { compileBundle, PROJECT_POLICY_FILE } from "./compile.js";
import type { EditInput } from "./edit-context.js";
import { PolicyWorkerPool, timedOut, type BundleSpec } from "./worker-pool.js";

export const POLICY_RUNTIME_SERVICE = "policy-runtime";
/** How long one check may take before it is answered undecided (warn: the human is asked). */
export const CHECK_DEADLINE_MS = 10_000;

/** The project policy file of a root, refusing a `.mcp-code-quality` that is a link. */
export function projectPolicyFile(root: string): string | undefined {
  const dir = path.join(root, path.dirname(PROJECT_POLICY_FILE));
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return undefined;
  }
  // A folder linked out of the root is never read. Leaving its policies out is safe (a project's file can
  // only add or tighten), and the project config refuses the same link on every call that would use it.
  if (!st.isDirectory()) {
    process.stderr.write(
      `mcp-code-quality: ${dir} is not a directory (a symbolic link?); its policy.yaml was not read\n`,
    );
    return undefined;
  }
  const file = path.join(root, PROJECT_POLICY_FILE);
  return fs.existsSync(file) || isLink(file) ? file : undefined;
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A root's policy file and its text now (a link or an unreadable file is its own state: compile reports it). */
function readProject(root: string): { file?: string; text?: string; key: string } {
  const file = projectPolicyFile(root);
  if (!file) return { key: "none" };
  let text: string | undefined;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      text = fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    return { file, key: `unreadable:${(err as NodeJS.ErrnoException).code ?? ""}` };
  }
  return { file, text, key: createHash("sha256").update(text).digest("hex") };
}

/** Compiles the bundle that applies in one project root (read from its files now). */
export function compileForRoot(root: string, allowLoosening: boolean, sourceDir?: string): Promise<Bundle> {
  return compileBundle({ sourceDir, projectFile: projectPolicyFile(root), allowLoosening });
}

interface RootState {
  key: string;
  bundle: Bundle;
  spec: BundleSpec;
}

/** The check deadline: MCP_CODE_QUALITY_POLICY_DEADLINE_MS (a positive integer) or CHECK_DEADLINE_MS. */
export function checkDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MCP_CODE_QUALITY_POLICY_DEADLINE_MS);
  return Number.isInteger(n) && n > 0 ? n : CHECK_DEADLINE_MS;
}

export class PolicyRuntime {
  readonly deadlineMs = checkDeadlineMs();
  private readonly pool = new PolicyWorkerPool();
  private refreshing: Promise<void> | undefined;

  private constructor(
    private readonly roots: readonly string[],
    private readonly allowLoosening: boolean,
    private readonly byRoot: Map<string, RootState>,
    private readonly shipped: RootState,
  ) {}

  private static async compile(root: string | undefined, allowLoosening: boolean): Promise<RootState> {
    const project = root ? readProject(root) : { key: "none" as const };
    const bundle = await compileBundle({
      ...("file" in project && project.file ? { projectFile: project.file } : {}),
      ...("text" in project && project.text !== undefined ? { projectText: project.text } : {}),
      allowLoosening,
    });
    const spec: BundleSpec = {
      ...("file" in project && project.file ? { projectFile: project.file } : {}),
      ...("text" in project && project.text !== undefined ? { projectText: project.text } : {}),
      allowLoosening,
      hash: bundle.hash,
    };
    return { key: project.key, bundle, spec };
  }

  /** Compiles every root's bundle; throws BundleError when any is invalid. */
  static async start(roots: readonly string[], allowLoosening: boolean): Promise<PolicyRuntime> {
    const shipped = await PolicyRuntime.compile(undefined, allowLoosening);
    const byRoot = new Map<string, RootState>();
    // A root without a policy file of its own has the shipped bundle: compiled once, not once per root.
    for (const root of roots)
      byRoot.set(root, projectPolicyFile(root) ? await PolicyRuntime.compile(root, allowLoosening) : shipped);
    return new PolicyRuntime(roots, allowLoosening, byRoot, shipped);
  }

  /**
   * Recompiles the bundle of every root whose policy file changed (appeared, went, or now says something
   * else) since it was compiled. An invalid new file throws BundleError: the call fails, nothing is allowed.
   */
  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    const running: Promise<void> = this.recompileChanged().finally(() => {
      if (this.refreshing === running) this.refreshing = undefined;
    });
    this.refreshing = running;
    return running;
  }

  private async recompileChanged(): Promise<void> {
    for (const root of this.roots) {
      const now = readProject(root);
      const state = this.byRoot.get(root);
      if (state && state.key === now.key) continue;
      this.byRoot.set(
        root,
        now.key === "none" ? this.shipped : await PolicyRuntime.compile(root, this.allowLoosening),
      );
    }
  }

  private stateFor(canonical: string | undefined, allowlist: Allowlist): RootState {
    const root = canonical ? allowlist.rootOf(canonical) : undefined;
    return (root && this.byRoot.get(root)) || this.defaultState();
  }

  /** The bundle for a canonical path (its allowed root's), or the shipped one. */
  bundleFor(canonical: string | undefined, allowlist: Allowlist): Bundle {
    return this.stateFor(canonical, allowlist).bundle;
  }

  private defaultState(): RootState {
    return this.byRoot.values().next().value ?? this.shipped;
  }

  defaultBundle(): Bundle {
    return this.defaultState().bundle;
  }

  private specOf(bundle: Bundle): BundleSpec {
    for (const s of [...this.byRoot.values(), this.shipped]) if (s.bundle === bundle) return s.spec;
    throw new Error(`bundle ${bundle.hash} is not one of this server's`);
  }

  /** A command check in a worker, within the deadline. */
  checkCommand(
    bundle: Bundle,
    input: { command?: string; argv?: string[] },
    site: CheckSite,
  ): Promise<CommandCheck> {
    return this.pool.run({ op: "command", spec: this.specOf(bundle), input, site }, this.deadlineMs, () => ({
      ...timedOut(bundle, "command", this.deadlineMs),
      commands_checked: 0,
      parse_error: false,
      undecided: [`the check did not finish within ${this.deadlineMs} ms`],
    }));
  }

  /** An edit check in a worker, within the deadline. */
  checkEdit(bundle: Bundle, edit: EditInput, options: EditCheckOptions): Promise<CheckOutcome> {
    return this.pool.run({ op: "edit", spec: this.specOf(bundle), edit, options }, this.deadlineMs, () =>
      timedOut(bundle, "edit", this.deadlineMs),
    );
  }

  /** A diff's check (every file it names) in a worker, within the deadline. */
  checkDiff(
    bundle: Bundle,
    edit: EditInput & { diff: string },
    base: string,
    options: EditCheckOptions & { roots: string[] },
  ): Promise<CheckOutcome> {
    return this.pool.run(
      { op: "diff", spec: this.specOf(bundle), edit, base, options },
      this.deadlineMs,
      () => timedOut(bundle, "edit", this.deadlineMs),
    );
  }

  /** Answers from the first root's bundle as it is at each call. */
  advisor(): PolicyAdvisor {
    const current = () => this.defaultBundle();
    const specOf = (b: Bundle) => this.specOf(b);
    return {
      get bundleHash() {
        return current().hash;
      },
      get spec() {
        return specOf(current());
      },
      adviseDiagnostic: (d) => current().adviseDiagnostic(d),
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Where a server keeps the runtime and the advisor (see Services.get). */
interface ServiceRegistry {
  get<T extends object>(key: string, create: () => T): T;
}

/**
 * Compiles the bundles for a server's roots and registers the runtime and the advisor, so tools that call
 * `services.get(POLICY_ADVISOR_SERVICE, () => EMPTY_ADVISOR)` get the bundle's advice. Throws BundleError.
 */
export async function registerPolicyServices(
  services: ServiceRegistry,
  roots: readonly string[],
  allowLoosening: boolean,
): Promise<PolicyRuntime> {
  const runtime = await PolicyRuntime.start(roots, allowLoosening);
  const holder = services.get<{ ready?: Promise<PolicyRuntime>; close?: () => Promise<void> }>(
    POLICY_RUNTIME_SERVICE,
    () => ({}),
  );
  holder.ready = Promise.resolve(runtime);
  holder.close = () => runtime.close();
  services.get(POLICY_ADVISOR_SERVICE, () => runtime.advisor());
  return runtime;
}
