/**
 * What each managed tool may do: network, git, what it writes, whether it runs the project's own code. The one
 * source of these facts: tool_capabilities reports them and the sandbox (plan.ts) enforces them. Keyed by the
 * names the registries use; src/adapters/managed-capabilities.ts checks the registries against it.
 */

export interface ToolSandboxFacts {
  /** "none", or when and why it may reach the network. */
  network: "none" | "may" | "required";
  /** Whether it runs git or reads a repository's git data. */
  git: boolean;
  /** What it writes: "none", its own cache outside the project, or project files (only through transactions). */
  writes: ("none" | "cache" | "project-files")[];
  /** It loads or runs code from the project (configs, plugins, tests, build scripts). */
  runs_project_code: boolean;
  /**
   * Credential variables it is given although their names say secret (env.ts leaves every other one out):
   * names, or prefixes ending in `*`.
   */
  env?: readonly string[];
  note?: string;
}

const f = (
  network: ToolSandboxFacts["network"],
  git: boolean,
  writes: ToolSandboxFacts["writes"],
  runs_project_code: boolean,
  note?: string,
): ToolSandboxFacts => ({ network, git, writes, runs_project_code, ...(note ? { note } : {}) });

const GO_NOTE =
  "GOTOOLCHAIN=local; missing modules are downloaded through GOPROXY (or git for direct fetches)";
const CARGO_NOTE =
  "--locked when a Cargo.lock exists; missing crates are fetched (git for git dependencies); build scripts and proc macros run; builds go to a temp target dir";

export const MANAGED_TOOL_FACTS: Record<string, ToolSandboxFacts> = {
  ruff: f(
    "none",
    false,
    ["project-files"],
    false,
    "--no-cache; writes only in lint_fix/autoformat transactions",
  ),
  black: f("none", false, ["project-files", "cache"], false, "writes only in autoformat transactions"),
  flake8: f("none", false, ["none"], true, "plugins installed beside it run"),
  mypy: f(
    "none",
    false,
    ["cache"],
    true,
    "its incremental cache in the server's cache folder (one folder per project, read-write in the sandbox); configured plugins run",
  ),
  ty: f("none", false, ["none"], false),
  pyright: f("none", false, ["none"], false),
  bandit: f("none", false, ["none"], false),
  pytest: f(
    "may",
    false,
    ["cache"],
    true,
    "runs the project's tests (-p no:cacheprovider): they may do anything",
  ),
  "pip-audit": {
    ...f("required", false, ["cache"], false, "queries the vulnerability service"),
    // A private index's credentials (PIP_INDEX_URL with a password, UV_INDEX_<NAME>_PASSWORD).
    env: ["PIP_*", "UV_*"],
  },
  npm: {
    ...f("required", false, ["none"], false, "npm audit asks the registry"),
    // A private registry's token, as .npmrc files name it.
    env: ["NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config_*", "NPM_CONFIG_*"],
  },
  eslint: f(
    "none",
    false,
    ["project-files"],
    true,
    "the project's config and plugins run; writes only in lint_fix",
  ),
  prettier: f("none", false, ["project-files"], true, "plugins run; writes only in autoformat transactions"),
  tsc: f("none", false, ["none"], false, "noEmit"),
  go: f("may", true, ["cache"], false, GO_NOTE),
  govet: f("may", true, ["cache"], false, GO_NOTE),
  staticcheck: f("may", true, ["cache"], false, GO_NOTE),
  golint: f("may", true, ["cache"], false, GO_NOTE),
  // Its config may load code: Go plugins (refused where the server reads the config, golangci-lint.ts), and
  // formats the server cannot read with certainty; so its runs are the project's code, contained as such.
  "golangci-lint": f(
    "may",
    true,
    ["cache"],
    true,
    `its analysis cache (GOLANGCI_LINT_CACHE) in a folder of the project's own; the project's config is read, and a config that loads Go plugins is not run; Go's shared caches read-only (go mod download fills GOMODCACHE first), what its go list builds kept per project; ${GO_NOTE}`,
  ),
  gofmt: f("none", false, ["project-files"], false, "writes only in autoformat transactions"),
  "go test": f("may", true, ["cache"], true, `runs the project's tests; ${GO_NOTE}`),
  cargo: f("may", true, ["cache"], true, CARGO_NOTE),
  clippy: f("may", true, ["cache", "project-files"], true, `${CARGO_NOTE}; writes only in lint_fix`),
  "cargo test": f("may", true, ["cache"], true, `runs the project's tests; ${CARGO_NOTE}`),
  rustfmt: f("none", false, ["project-files"], false, "writes only in autoformat transactions"),
  rubocop: f("none", false, ["project-files", "cache"], true, "required plugins run; writes only in fixes"),
  ruby: f("none", false, ["none"], true, "runs RuboCop's worker (the plugins a config requires run in it)"),
  javascript: f(
    "may",
    false,
    ["cache"],
    true,
    "the project's test runner (jest, vitest, node --test), and tstyche when its test script runs it",
  ),
  "ruby tests": f(
    "may",
    false,
    ["cache"],
    true,
    "the project's tests: rspec, or minitest (rake test / ruby -Itest)",
  ),
  rspec: f("may", false, ["cache"], true, "runs the project's specs"),
  gosec: f("may", true, ["cache"], false, `security_scan's Go scanner; ${GO_NOTE}`),
  // A repository's config names programs git runs (core.fsmonitor, hooks, filters): every git gets overrides
  // (git-safety.ts), and is sandboxed as the project's code for what they cannot turn off.
  git: f(
    "none",
    true,
    ["none"],
    true,
    "lists staged and changed files for lint_check and `changed`; the repository's config is the project's code",
  ),
};
