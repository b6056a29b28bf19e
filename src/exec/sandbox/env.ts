/**
 * The environment a tool starts with, built here for every process the server starts (the runner, the warm
 * workers, the daemons): never the server's own settings and tokens (--auth-token, the remote cache's token and
 * secret), nor any variable named like a credential (`*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_API_KEY`, `AWS_*`,
 * ...), nor any variable whose value holds a URL's credentials (`DATABASE_URL=postgres://app:s3cret@db/app`,
 * credential-value.ts), unless the tool declares it (tool-facts.ts `env`); a tool that may use the network
 * keeps the proxies' credentials (it cannot reach anything without them). On top of that:
 * - a tool that runs no project code gets an allowlist: what every tool needs (PATH, HOME, locale, temp and XDG
 *   folders, CA bundles, CI), its family's own settings (PYTHON*, GO*, CARGO_*, NODE_OPTIONS, ...), and the
 *   proxies when it may use the network;
 * - a tool that runs project code (tests, build scripts, configs and plugins) gets every other variable as
 *   well, so that a suite or an `eslint.config.js` that reads `NODE_ENV` or a switch of its own behaves as in
 *   the project's CI: the sandbox hides secrets, it does not change behaviour;
 * - the advice provider keeps its own credentials (its API keys), never the server's.
 * Pure but for the facts table.
 */
import { hasUrlCredential } from "./credential-value.js";
import { factsKeyOf, factsOf, runsProjectCode, type SandboxRequest } from "./plan.js";

export type EnvFamily = "python" | "node" | "go" | "rust" | "ruby" | "git" | "other";

/** Variables every tool gets (names, or prefixes ending in `*`). */
export const COMMON_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TERM",
  "NO_COLOR",
  // Kept only for runs with colorEnv "keep" (runner.ts removes it otherwise).
  "FORCE_COLOR",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_*",
  "CI",
  "SOURCE_DATE_EPOCH",
  "LD_LIBRARY_PATH",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "NODE_EXTRA_CA_CERTS",
];

/** The proxies, for a tool that may use the network. */
export const NETWORK_ENV = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
];

const C_BUILD = [
  "CC",
  "CXX",
  "AR",
  "CFLAGS",
  "CXXFLAGS",
  "CPPFLAGS",
  "LDFLAGS",
  "PKG_CONFIG*",
  "LIBRARY_PATH",
  "CPATH",
];

/** Each family's own settings. */
export const FAMILY_ENV: Readonly<Record<EnvFamily, readonly string[]>> = {
  python: [
    "PYTHON*",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYENV*",
    "MYPY*",
    "RUFF_*",
    "BLACK_*",
    "TY_*",
    "PYRIGHT*",
    "UV_*",
    "PIP_*",
    "PIP_AUDIT_*",
    "BANDIT_*",
    "COVERAGE_*",
  ],
  node: [
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_ENV",
    "NODE_NO_WARNINGS",
    "TS_NODE_*",
    "ESLINT_*",
    "PRETTIER_*",
    "TIMING",
    "BROWSERSLIST*",
    "COREPACK_*",
    "npm_config_*",
    "NPM_CONFIG_*",
  ],
  go: ["GO*", "CGO_*", "STATICCHECK_*", "GIT_*", ...C_BUILD],
  rust: ["CARGO_*", "RUSTUP_*", "RUST*", "OPENSSL_*", "SCCACHE_*", "CMAKE*", "GIT_*", ...C_BUILD],
  ruby: ["GEM_*", "BUNDLE_*", "BUNDLER_*", "RUBY*", "RBENV_*", "RUBOCOP_*", "JRUBY_*"],
  git: ["GIT_*"],
  other: [],
};

const FAMILY_OF_KEY: Readonly<Record<string, EnvFamily>> = {
  ruff: "python",
  black: "python",
  flake8: "python",
  mypy: "python",
  ty: "python",
  bandit: "python",
  "pip-audit": "python",
  pytest: "python",
  pyright: "node",
  eslint: "node",
  prettier: "node",
  tsc: "node",
  npm: "node",
  npx: "node",
  node: "node",
  go: "go",
  govet: "go",
  staticcheck: "go",
  golint: "go",
  "golangci-lint": "go",
  gosec: "go",
  gofmt: "go",
  cargo: "rust",
  clippy: "rust",
  rustfmt: "rust",
  rustc: "rust",
  rubocop: "ruby",
  ruby: "ruby",
  rspec: "ruby",
  bundle: "ruby",
  rake: "ruby",
  git: "git",
  // The test runners, as tool_capabilities names them.
  "go test": "go",
  "cargo test": "rust",
  javascript: "node",
  "ruby tests": "ruby",
};

/** The family of an executable (by its facts key, then its name: `python3.12` is python). */
export function envFamilyOf(executable: string): EnvFamily {
  const key = factsKeyOf(executable);
  const known = FAMILY_OF_KEY[key];
  if (known) return known;
  if (/^python\d*(\.\d+)?$|^pip\d*$/.test(key)) return "python";
  if (/^cargo-/.test(key)) return "rust";
  return "other";
}

/** The server's own settings and tokens: never given to any process it starts. */
const SERVER_OWN = ["MCP_CODE_QUALITY_*", "ESLINT_MCP_*", "TURBO_*"];

/** Credentials by prefix: cloud and forge accounts, agents holding keys. */
const CREDENTIAL_PREFIXES = [
  "AWS_*",
  "AZURE_*",
  "ARM_CLIENT_*",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_CLOUD_*",
  "GCLOUD_*",
  "CLOUDSDK_*",
  "GH_*",
  "GITHUB_TOKEN",
  "GITLAB_*",
  "BITBUCKET_*",
  "DOCKER_AUTH_CONFIG",
  "VAULT_*",
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "SSH_ASKPASS",
  "GIT_ASKPASS",
  // git's settings given through the environment (`git -c`, GIT_CONFIG_KEY_n): an http.extraHeader with a
  // bearer token, a credential helper, or a core.sshCommand a tool's git would run.
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_KEY_*",
  "GIT_CONFIG_VALUE_*",
];

/** Name segments (split at `_`, upper-cased) that make a variable a credential. */
const CREDENTIAL_SEGMENTS = new Set([
  "TOKEN",
  "TOKENS",
  "AUTHTOKEN",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "APIKEY",
  "KEY",
  "KEYS",
  "AUTH",
  "PAT",
  // A red team's test read each of these: DB_PASS, SESSION_COOKIE, BEARER, CREDS.
  "PASS",
  "PASSWORDS",
  "COOKIE",
  "COOKIES",
  "BEARER",
  "CRED",
  "CREDS",
]);

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.includes("*")));
  const globs = patterns
    .filter((p) => p.includes("*"))
    .map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`));
  return (name) => exact.has(name) || globs.some((g) => g.test(name));
}

const isServerOwn = matcher(SERVER_OWN);
const hasCredentialPrefix = matcher(CREDENTIAL_PREFIXES);

/**
 * Words that make a segment a credential wherever they stand in it (ZZ_SECRETKEY, PGPASSWORD); TOKEN only
 * at its end (ACCESSTOKEN, not TOKENIZERS_PARALLELISM).
 */
const CREDENTIAL_WORDS =
  /SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|APIKEY|PRIVATEKEY|ACCESSKEY|TOKENS?$|CREDS$|COOKIES?$|BEARER$/;

/** The shell's own working-directory variables, whose segment PWD is no password (MYSQL_PWD is). */
const SHELL_PWD = new Set(["PWD", "OLDPWD"]);

/** Whether a variable's name says it holds a credential. */
export function isCredentialName(name: string): boolean {
  if (hasCredentialPrefix(name)) return true;
  if (SHELL_PWD.has(name)) return false;
  return name
    .split(/_+/)
    .filter(Boolean)
    .some((part) => {
      // A number after the word names a second one (TOKEN2, GITHUB_TOKEN2, AUTH0): the same credential.
      const segment = part.toUpperCase().replace(/\d+$/, "");
      return CREDENTIAL_SEGMENTS.has(segment) || segment === "PWD" || CREDENTIAL_WORDS.test(segment);
    });
}

export interface BuiltEnv {
  env: NodeJS.ProcessEnv;
  family: EnvFamily;
  /** "allowlist": only what the family needs; "all but secrets": a tool that runs project code, or the provider. */
  policy: "allowlist" | "all but secrets";
}

/**
 * The environment for `executable` under `request` (undefined: a run outside any call, such as the runner's
 * own), built from `base` (the server's). `declared`: names or `PREFIX*` patterns a step declares it needs
 * beyond its facts' (a cargo fetch's registry tokens).
 */
export function toolEnvironment(
  executable: string,
  realExecutable: string,
  request: SandboxRequest | undefined,
  base: NodeJS.ProcessEnv,
  declared: readonly string[] = [],
): BuiltEnv {
  const facts = factsOf(executable);
  const family = envFamilyOf(executable);
  const isDeclared = matcher([...(facts?.env ?? []), ...declared]);
  if (request?.kind === "provider") {
    // Its own credentials (API keys) it keeps; the server's never.
    return { env: pick(base, (k) => !isServerOwn(k)), family, policy: "all but secrets" };
  }
  const network = facts !== undefined && facts.network !== "none";
  const isProxy = matcher(network ? NETWORK_ENV : []);
  const allowed = (k: string, v: string) =>
    isDeclared(k) || (!isServerOwn(k) && !isCredentialName(k) && (isProxy(k) || !hasCredentialValue(v)));
  const projectCode = runsProjectCode(request ?? { kind: "read", roots: [] }, facts, realExecutable);
  if (projectCode) return { env: pick(base, allowed), family, policy: "all but secrets" };
  const families: EnvFamily[] = family === "other" ? (Object.keys(FAMILY_ENV) as EnvFamily[]) : [family];
  // pyright's CLI is a Node program that reads a Python environment.
  if (factsKeyOf(executable) === "pyright") families.push("python");
  const wanted = matcher([
    ...COMMON_ENV,
    ...(network ? NETWORK_ENV : []),
    ...families.flatMap((f) => FAMILY_ENV[f]),
  ]);
  return {
    env: pick(base, (k, v) => isDeclared(k) || (wanted(k) && allowed(k, v))),
    family,
    policy: "allowlist",
  };
}

/** The same environment is looked at for every process the server starts: each value is scanned once. */
const credentialValues = new Map<string, boolean>();

function hasCredentialValue(value: string): boolean {
  let known = credentialValues.get(value);
  if (known === undefined) {
    known = hasUrlCredential(value);
    if (credentialValues.size >= 4096) credentialValues.clear();
    credentialValues.set(value, known);
  }
  return known;
}

function pick(base: NodeJS.ProcessEnv, keep: (name: string, value: string) => boolean): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && keep(k, v)) out[k] = v;
  return out;
}

/** What each family gets, for tool_capabilities. */
export function environmentReport(): Record<string, unknown> {
  return {
    never: [
      ...SERVER_OWN,
      ...CREDENTIAL_PREFIXES,
      `any name with a segment ${[...CREDENTIAL_SEGMENTS].join(", ")} (split at _), unless the tool declares it`,
      "any value holding a URL with a password or a token as its user (scheme://user:password@host), but to the local machine or an example host; a tool that may use the network keeps the proxies'",
    ],
    tools_without_project_code: {
      every_tool: COMMON_ENV,
      with_network: NETWORK_ENV,
      families: FAMILY_ENV,
      other: "the settings of every family",
    },
    tools_with_project_code:
      "every variable the server has but those above (tests, build scripts and configs see what the project's CI would)",
    advice_provider: "every variable but the server's own (it keeps its own API keys)",
  };
}
