/**
 * Fill steps: a run that executes project code sees the shared module caches read-only (plan.ts), so what it
 * needs is put there first by a step of the same tool that runs no project code, with the caches read-write,
 * the network its facts allow and the project read-only:
 * - cargo (build scripts and proc macros run in check, clippy, test, build): `cargo fetch`, which downloads and
 *   unpacks the crates into `$CARGO_HOME/registry` and `git`. It would run the project's configured rustc,
 *   wrappers and credential providers, so it runs with the toolchain's own (RUSTC=rustc, no wrappers, cargo's
 *   token provider), and not at all when the project's rust-toolchain file names a toolchain by path.
 * - go test: `go test -exec=true -count=1` with the same arguments: it downloads the modules and compiles the
 *   packages and their tests into GOCACHE without running them.
 * - golangci-lint run (its config may load code: plugins it refuses, formats it cannot read): `go mod
 *   download`, by the go command beside it, so that the modules its `go list` loads are in GOMODCACHE.
 * A step that succeeded is not repeated for the same step while the manifests (Cargo.toml, Cargo.lock,
 * go.mod, go.sum) are unchanged: `cargo clippy` and `cargo check` of a crate share one `cargo fetch` (keyed by
 * the step's own command, not the run's), and a run that needs a step already under way waits for that one
 * (fillOnce). What a fetch left is named by the manifests and the caches it filled, so its success is also
 * remembered between processes (fill-memo.ts): a fresh `check` of a crate whose dependencies are in place
 * starts no fetch (issue 42: four fetches, ~60 ms each, were most of what a fresh check of rust-lang/log spent
 * beyond the tools). A go test's compile depends on the sources too: it is remembered in this process only.
 * A step that fails is left to the run itself, which then says what is missing.
 */
import fs from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { findExecutable } from "../which.js";
import { fillRemembered, rememberFill } from "./fill-memo.js";
import { InFlight } from "../in-flight.js";
import { factsKeyOf, type SandboxRequest } from "./plan.js";
import type { SandboxProfile } from "./profile.js";

export interface FillStep {
  /** The program that fills, when not the run's own (golangci-lint's step is the go command's). */
  program?: string;
  args: string[];
  /** Set on top of the run's environment. */
  env: Record<string, string>;
  /** Credentials the step is given (env.ts leaves them out of every other run). */
  declaredEnv: string[];
  request: SandboxRequest;
  /** Done once per key. */
  key: string;
  /** What the step fills (the read-only caches): remembered on disk with their state, when set. */
  persist?: readonly string[];
}

const CARGO_BUILDS = new Set(["check", "clippy", "test", "build", "run", "bench", "doc", "rustc", "fix"]);
const TRUE = findExecutable("true", ["/usr/bin", "/bin"], "") ?? "/usr/bin/true";
const done = new Set<string>();

/** The fill step a run needs before it starts, if any. */
export function fillStepFor(
  executable: string,
  args: readonly string[],
  cwd: string,
  request: SandboxRequest,
  profile: SandboxProfile,
): FillStep | "done" | undefined {
  if (request.fill || !profile.readOnlyCaches?.length) return undefined;
  const key = factsKeyOf(executable);
  const step =
    key === "cargo"
      ? cargoFetch(args, cwd)
      : key === "go" && request.kind === "tests"
        ? goCompile(args)
        : key === "golangci-lint"
          ? goDownload(args)
          : undefined;
  if (!step) return undefined;
  const names =
    key === "cargo" ? ["Cargo.toml", "Cargo.lock"] : ["go.mod", "go.sum", "go.work", "go.work.sum"];
  // The network its facts give it (a test run's may be cut); the project read-only, but for the Cargo.lock
  // cargo must write to resolve a crate that has none (removed afterwards, cargo-run.ts).
  const lockless = key === "cargo" && (request.kind === "tests" || (request.writableRoots?.length ?? 0) > 0);
  // The step's own command, not the run's: what it fills is the same for every run that needs it. But for a
  // crate without a Cargo.lock: the lock its fetch resolved is the one its run uses (then removed), so that
  // fetch goes before each command, as before.
  const memo = [
    step.program ?? executable,
    cwd,
    ...(lockless ? args : step.args),
    JSON.stringify(step.env),
    String(lockless),
    manifestsSignature(cwd, names),
  ].join("\0");
  if (done.has(memo)) return "done";
  const persist = key === "cargo" && !lockless ? profile.readOnlyCaches : undefined;
  if (persist && fillRemembered(memo, persist)) {
    done.add(memo);
    return "done";
  }
  const fill: SandboxRequest = lockless
    ? {
        kind: "write",
        roots: request.roots,
        writableRoots: request.writableRoots ?? request.roots,
        fill: true,
      }
    : { kind: "read", roots: request.roots, fill: true };
  return {
    ...step,
    request: { ...fill, ...(request.readOnly ? { readOnly: request.readOnly } : {}) },
    key: memo,
    ...(persist ? { persist } : {}),
  };
}

/**
 * Whether a run whose fill step succeeded (now or before) needs no network of its own: cargo's builds, whose
 * build scripts and proc macros are the project's code, once `cargo fetch` put every crate in place. A read
 * or write run then has no network (and CARGO_NET_OFFLINE): a build.rs reached 127.0.0.1 and the internet
 * during a read-only type_check (a red team's run). Test runs keep theirs (suites talk to services).
 */
export function offlineAfterFill(executable: string, request: SandboxRequest): boolean {
  return factsKeyOf(executable) === "cargo" && request.kind !== "tests" && !request.fill;
}

/** Records a step that succeeded. */
export function fillDone(step: FillStep): void {
  done.add(step.key);
  if (step.persist) rememberFill(step.key, step.persist);
}

const filling = new InFlight<unknown>();

/**
 * `run()` for the step, or the run of the same step already under way (`shared`): concurrent runs that need
 * one fill wait for one. `env`: the run's own environment, which the step runs with too.
 */
export function fillOnce<R>(
  step: FillStep,
  env: Readonly<Record<string, string | undefined>> | undefined,
  run: () => Promise<R>,
): { result: Promise<R>; shared: boolean } {
  const { result, shared } = filling.join(JSON.stringify([step.key, env ?? {}]), run);
  return { result: result as Promise<R>, shared };
}

function cargoFetch(args: readonly string[], cwd: string): Omit<FillStep, "request" | "key"> | undefined {
  const toolchain = args[0]?.startsWith("+") ? [args[0]] : [];
  const sub = args[toolchain.length];
  if (!sub || !CARGO_BUILDS.has(sub)) return undefined;
  if (pathToolchain(cwd)) return undefined;
  const pass = args.filter((a) => a === "--locked" || a === "--frozen" || a === "--offline");
  return {
    args: [...toolchain, "fetch", ...new Set(pass)],
    env: {
      RUSTC: "rustc",
      RUSTC_WRAPPER: "",
      RUSTC_WORKSPACE_WRAPPER: "",
      CARGO_BUILD_RUSTC_WRAPPER: "",
      CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER: "",
      CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS: "cargo:token",
      CARGO_REGISTRY_CREDENTIAL_PROVIDER: "cargo:token",
      ...registryProviders(cwd),
    },
    // A registry's token, and its index address, which may carry credentials of its own.
    declaredEnv: ["CARGO_REGISTRY_TOKEN", "CARGO_REGISTRIES_*_TOKEN", "CARGO_REGISTRIES_*_INDEX"],
  };
}

/** A private module proxy's or checksum database's address may carry its credentials (`https://me:tok@proxy`). */
const GO_FETCH_ENV = ["GOPROXY", "GOSUMDB"];

function goCompile(args: readonly string[]): Omit<FillStep, "request" | "key"> | undefined {
  if (args[0] !== "test") return undefined;
  return {
    args: ["test", `-exec=${TRUE}`, "-count=1", ...args.slice(1)],
    env: {},
    declaredEnv: GO_FETCH_ENV,
  };
}

/**
 * golangci-lint's `run`: `go mod download` (the modules of the build list, whatever build tags the config
 * sets), by the go command golangci-lint itself runs (the one on PATH). `fmt` and `version` load no package
 * and get none.
 */
function goDownload(args: readonly string[]): Omit<FillStep, "request" | "key"> | undefined {
  if (args[0] !== "run") return undefined;
  const go = findExecutable("go");
  if (!go) return undefined;
  return { program: go, args: ["mod", "download"], env: {}, declaredEnv: GO_FETCH_ENV };
}

/** Presence, size and mtime of the named manifests in `dir` and its parents. */
function manifestsSignature(dir: string, names: readonly string[]): string {
  const parts: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    for (const n of names) {
      const st = fs.statSync(path.join(d, n), { throwIfNoEntry: false });
      if (st) parts.push(`${d}/${n}:${st.size}:${st.mtimeMs}`);
    }
    if (path.dirname(d) === d) break;
  }
  return parts.join("|");
}

/** The project's rust-toolchain file names a toolchain by path (its own programs): rustup would run them. */
export function pathToolchain(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    for (const name of ["rust-toolchain.toml", "rust-toolchain"]) {
      let text: string;
      try {
        text = fs.readFileSync(path.join(d, name), "utf8");
      } catch {
        continue;
      }
      try {
        const toolchain = (parseToml(text) as { toolchain?: { path?: unknown; channel?: unknown } })
          .toolchain;
        return toolchain?.path !== undefined || String(toolchain?.channel ?? "").includes("/");
      } catch {
        // The legacy one-line form: a channel name, or a path.
        return text.includes("/");
      }
    }
    if (path.dirname(d) === d) return false;
  }
}

/** Every registry the project's cargo configs name gets cargo's own token provider, not one of the project's. */
function registryProviders(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let d = dir; ; d = path.dirname(d)) {
    for (const name of ["config.toml", "config"]) {
      try {
        const config = parseToml(fs.readFileSync(path.join(d, ".cargo", name), "utf8")) as {
          registries?: Record<string, unknown>;
        };
        for (const registry of Object.keys(config.registries ?? {}))
          out[`CARGO_REGISTRIES_${registry.toUpperCase().replace(/-/g, "_")}_CREDENTIAL_PROVIDER`] =
            "cargo:token";
      } catch {
        // None, or unreadable: cargo reports a broken one itself.
      }
    }
    if (path.dirname(d) === d) return out;
  }
}
