/**
 * The policy bundles of one server: the shipped bundle with each allowed root's project policy
 * (`.mcp-code-quality/policy.yaml`) applied, compiled once at start. The advisor the other tools use
 * (POLICY_ADVISOR_SERVICE) answers from the first root's bundle.
 */
import fs from "node:fs";
import path from "node:path";
import type { Allowlist } from "../paths/allowlist.js";
import { POLICY_ADVISOR_SERVICE, type PolicyAdvisor } from "./advisor.js";
import type { Bundle } from "./bundle.js";
import { compileBundle, PROJECT_POLICY_FILE } from "./compile.js";

export const POLICY_RUNTIME_SERVICE = "policy-runtime";

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

/** Compiles the bundle that applies in one project root. */
export function compileForRoot(root: string, allowLoosening: boolean, sourceDir?: string): Promise<Bundle> {
  return compileBundle({ sourceDir, projectFile: projectPolicyFile(root), allowLoosening });
}

export class PolicyRuntime {
  /** How long one check may take before it is answered undecided. */
  readonly deadlineMs = 10_000;

  private constructor(
    private readonly byRoot: Map<string, Bundle>,
    private readonly shipped: Bundle,
  ) {}

  /** Compiles every root's bundle; throws BundleError when any is invalid. */
  static async start(roots: readonly string[], allowLoosening: boolean): Promise<PolicyRuntime> {
    const shipped = await compileBundle();
    const byRoot = new Map<string, Bundle>();
    // A root without a policy file of its own has the shipped bundle: compiled once, not once per root.
    for (const root of roots)
      byRoot.set(root, projectPolicyFile(root) ? await compileForRoot(root, allowLoosening) : shipped);
    return new PolicyRuntime(byRoot, shipped);
  }

  /** The bundle for a canonical path (its allowed root's), or the shipped one. */
  bundleFor(canonical: string | undefined, allowlist: Allowlist): Bundle {
    const root = canonical ? allowlist.rootOf(canonical) : undefined;
    return (root && this.byRoot.get(root)) || this.defaultBundle();
  }

  defaultBundle(): Bundle {
    return this.byRoot.values().next().value ?? this.shipped;
  }

  advisor(): PolicyAdvisor {
    const bundle = this.defaultBundle();
    return { bundleHash: bundle.hash, adviseDiagnostic: (d) => bundle.adviseDiagnostic(d) };
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
  services.get(POLICY_RUNTIME_SERVICE, () => ({ ready: Promise.resolve(runtime) }));
  services.get(POLICY_ADVISOR_SERVICE, () => runtime.advisor());
  return runtime;
}
