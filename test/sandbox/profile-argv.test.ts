/** The pure half of the sandbox: which profile a process gets, and the bwrap argv that enforces it. */
import { describe, expect, it } from "vitest";
import { bwrapArgv, visibleIn } from "../../src/exec/sandbox/profile.js";
import { nestedTestsExec } from "../../src/exec/sandbox/launch.js";
import {
  factsKeyOf,
  planProfile,
  PRIVATE_TMP,
  type CacheSpec,
  type HostLayout,
} from "../../src/exec/sandbox/plan.js";

const filled = (p: string, name: string): CacheSpec => ({ path: p, name, withProjectCode: "read-only" });
const perProject = (p: string, name: string): CacheSpec => ({
  path: p,
  name,
  withProjectCode: "per-project",
});

const host: HostLayout = {
  system: [{ path: "/usr" }, { path: "/bin", link: "usr/bin" }, { path: "/etc" }],
  procReadOnly: ["/proc/sys"],
  perProjectCaches: "/home/u/.cache/mcp-code-quality/per-project",
  home: "/home/u",
  install: "/opt/mcq",
  toolchains: {
    common: ["/home/u/.pyenv"],
    go: ["/home/u/go"],
    cargo: ["/home/u/.cargo", "/home/u/.rustup"],
    npm: ["/home/u/.npmrc"],
    git: ["/home/u/.gitconfig"],
    node: [],
    provider: ["/home/u/.claude"],
  },
  caches: {
    common: [],
    go: [filled("/home/u/.cache/go-build", "go-build"), filled("/home/u/go/pkg/mod", "go-mod")],
    cargo: [filled("/home/u/.cargo/registry", "cargo-registry")],
    npm: [perProject("/home/u/.npm", "npm")],
    git: [],
    node: [
      {
        path: "/home/u/.cache/mcp-code-quality/v8-code-cache",
        name: "v8-code-cache",
        withProjectCode: "read-only",
        serverOnly: true,
      },
    ],
    provider: [],
  },
  toolCaches: {
    staticcheck: [perProject("/home/u/.cache/staticcheck", "staticcheck")],
    black: [perProject("/home/u/.cache/black", "black")],
  },
  goEnvFile: "/home/u/.config/go/env",
  gitAndShells: [
    { path: "/usr/bin/git", dir: false },
    { path: "/usr/bin/sh", dir: false },
    { path: "/usr/lib/git-core", dir: true },
  ],
};

/** The pairs `flag src dst` of the argv, as "flag dst". */
function mounts(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") break;
    if (["--ro-bind", "--bind", "--symlink"].includes(a)) out.push(`${a} ${argv[(i += 2)]}`);
    else if (["--tmpfs", "--dev", "--proc", "--chdir"].includes(a)) out.push(`${a} ${argv[++i]}`);
  }
  return out;
}

describe("planProfile", () => {
  it("read-only tools see the roots read-only, no network, and nothing of $HOME but toolchains", () => {
    const p = planProfile(
      host,
      { kind: "read", roots: ["/srv/a", "/srv/b"] },
      "/opt/mcq/.tools/venv/bin/ruff",
      "/srv/a",
    );
    expect(p.network).toBe(false);
    expect(p.readOnly).toEqual(expect.arrayContaining(["/srv/a", "/srv/b", "/opt/mcq", "/home/u/.pyenv"]));
    // Nothing of the server's scratch root: a run sees only the private folders its command names.
    expect(p.readWrite).toEqual([]);
    expect(p.readOnly).not.toContain("/home/u/.cargo");
    expect(p.hidden).toEqual([]);
  });

  it("a transaction's work writes its own root only", () => {
    const p = planProfile(
      host,
      { kind: "write", roots: ["/srv/a", "/srv/b"], writableRoots: ["/srv/a"] },
      "/opt/mcq/node_modules/.bin/prettier",
      "/srv/a",
    );
    expect(p.readWrite).toContain("/srv/a");
    expect(p.readOnly).toContain("/srv/b");
    expect(p.readOnly).not.toContain("/srv/a");
  });

  it("tests write the roots and keep the network unless cut", () => {
    const on = planProfile(
      host,
      { kind: "tests", roots: ["/srv/a"], writableRoots: ["/srv/a"], network: true },
      "/usr/bin/python3",
      "/srv/a",
    );
    expect(on.readWrite).toContain("/srv/a");
    expect(on.network).toBe(true);
    const off = planProfile(
      host,
      { kind: "tests", roots: ["/srv/a"], network: false },
      "/usr/bin/python3",
      "/srv/a",
    );
    expect(off.network).toBe(false);
  });

  it("the network follows the facts: audits and go/cargo get it, linters do not", () => {
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    expect(planProfile(host, read, "/usr/bin/npm", "/srv/a").network).toBe(true);
    expect(planProfile(host, read, "/opt/mcq/.tools/venv/bin/pip-audit", "/srv/a").network).toBe(true);
    expect(planProfile(host, read, "/usr/local/go/bin/go", "/srv/a").network).toBe(true);
    expect(planProfile(host, read, "/usr/bin/mypy", "/srv/a").network).toBe(false);
  });

  it("declared caches are writable only for the tools that fill them, and only when no project code runs", () => {
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    const go = planProfile(host, read, "/usr/local/go/bin/go", "/srv/a");
    expect(go.runsProjectCode).toBe(false);
    expect(go.readWrite).toEqual(expect.arrayContaining(["/home/u/.cache/go-build", "/home/u/go/pkg/mod"]));
    expect(go.readOnly).toContain("/home/u/go");
    expect(go.readOnlyCaches).toBeUndefined();
    // go test runs the project's tests: the shared caches are read-only (a fill step fills them first).
    const test = planProfile(
      host,
      { kind: "tests", roots: ["/srv/a"], writableRoots: ["/srv/a"], network: true },
      "/usr/local/go/bin/go",
      "/srv/a",
    );
    expect(test.runsProjectCode).toBe(true);
    expect(test.readWrite).not.toContain("/home/u/.cache/go-build");
    expect(test.readOnly).toEqual(expect.arrayContaining(["/home/u/.cache/go-build", "/home/u/go/pkg/mod"]));
    expect(test.readOnlyCaches).toEqual(["/home/u/.cache/go-build", "/home/u/go/pkg/mod"]);
    // The fill step of such a run runs none: read-write again, the roots read-only.
    const fill = planProfile(
      host,
      { kind: "read", roots: ["/srv/a"], fill: true },
      "/usr/local/go/bin/go",
      "/srv/a",
    );
    expect(fill.readWrite).toEqual(expect.arrayContaining(["/home/u/.cache/go-build", "/home/u/go/pkg/mod"]));
    expect(fill.readOnly).toContain("/srv/a");
    // cargo runs build scripts and proc macros: its registry is read-only.
    const cargo = planProfile(host, read, "/home/u/.cargo/bin/cargo", "/srv/a");
    expect(cargo.readWrite).not.toContain("/home/u/.cargo/registry");
    expect(cargo.readOnlyCaches).toEqual(["/home/u/.cargo/registry"]);
    expect(cargo.readOnly).toEqual(expect.arrayContaining(["/home/u/.cargo", "/home/u/.rustup"]));
    expect(planProfile(host, read, "/usr/bin/mypy", "/srv/a").readWrite).toEqual([]);
  });

  it("project code that runs the go command reads the shared build cache through go-cache-overlay, writing its project's own", () => {
    const withOverlay = { ...host, goCacheOverlay: "/opt/mcq/dist/native/go-cache-overlay" };
    const own = (project: string) =>
      planProfile(
        withOverlay,
        { kind: "tests", roots: [project] },
        "/usr/local/go/bin/go",
        project,
      ).readWrite.find((p) => p.startsWith(`${host.perProjectCaches}/go-build-own/`));
    // go test whose test binaries run nested: the go command writes the shared cache, the binaries get GOCACHEPROG.
    const nested = planProfile(
      withOverlay,
      { kind: "tests", roots: ["/srv/a"], nestedTests: true },
      "/usr/local/go/bin/go",
      "/srv/a",
    );
    const ownA = own("/srv/a");
    expect(ownA).toMatch(/\/go-build-own\/[0-9a-f]{20}$/);
    if (!ownA) return;
    expect(nested.setenv?.GOCACHEPROG).toBeUndefined();
    expect(nested.setenvForTests).toEqual({
      GOCACHEPROG: `/opt/mcq/dist/native/go-cache-overlay -shared /home/u/.cache/go-build -own ${ownA}`,
    });
    expect(nested.readWrite).toContain(ownA);
    expect(nested.caches).toContain(ownA);
    // Without nesting the go command itself runs as project code: it gets GOCACHEPROG.
    const flat = planProfile(
      withOverlay,
      { kind: "tests", roots: ["/srv/a"] },
      "/usr/local/go/bin/go",
      "/srv/a",
    );
    expect(flat.readOnlyCaches).toContain("/home/u/.cache/go-build");
    expect(flat.setenv?.GOCACHEPROG).toContain(`-own ${ownA}`);
    // Each project its own folder.
    expect(own("/srv/b")).not.toBe(ownA);
    // No project code, no program, or a path GOCACHEPROG would split: nothing set.
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    expect(
      planProfile(withOverlay, read, "/usr/local/go/bin/go", "/srv/a").setenv?.GOCACHEPROG,
    ).toBeUndefined();
    expect(
      planProfile(host, { kind: "tests", roots: ["/srv/a"] }, "/usr/local/go/bin/go", "/srv/a").setenv
        ?.GOCACHEPROG,
    ).toBeUndefined();
    const spaced = { ...withOverlay, goCacheOverlay: "/opt/my mcq/dist/native/go-cache-overlay" };
    expect(
      planProfile(spaced, { kind: "tests", roots: ["/srv/a"] }, "/usr/local/go/bin/go", "/srv/a").setenv
        ?.GOCACHEPROG,
    ).toBeUndefined();
    // Other families never.
    expect(
      planProfile(withOverlay, { kind: "tests", roots: ["/srv/a"] }, "/home/u/.cargo/bin/cargo", "/srv/a")
        .setenv?.GOCACHEPROG,
    ).toBeUndefined();
    // The nested sandbox sets it for the test binaries, one quoted field each.
    const exec = nestedTestsExec("/usr/bin/bwrap", ["/home/u/.cache/go-build"], nested.setenvForTests);
    expect(exec).toContain(
      `'--setenv' 'GOCACHEPROG' '/opt/mcq/dist/native/go-cache-overlay -shared /home/u/.cache/go-build -own ${ownA}'`,
    );
  });

  it("an allowed root /tmp shown read-only gets the run a private temp folder elsewhere, mounted after it", () => {
    const read = planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/usr/bin/mypy", "/srv/a");
    expect(read.privateTmp).toBeUndefined();
    const tmpRoot = planProfile(host, { kind: "read", roots: ["/tmp"] }, "/home/u/go/bin/gosec", "/tmp/p");
    expect(tmpRoot.privateTmp).toBe(PRIVATE_TMP);
    const m = mounts(bwrapArgv(tmpRoot, "/home/u/go/bin/gosec", []));
    expect(m.indexOf(`--tmpfs ${PRIVATE_TMP}`)).toBeGreaterThan(m.indexOf("--ro-bind /tmp"));
    // Written by the run itself (its tests' root): /tmp as it is.
    const tests = planProfile(
      host,
      { kind: "tests", roots: ["/tmp"], writableRoots: ["/tmp"] },
      "/usr/bin/pytest",
      "/tmp/p",
    );
    expect(tests.privateTmp).toBeUndefined();
  });

  it("a tool found inside the project runs the project's code: its caches are the project's own", () => {
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    const planted = planProfile(host, read, "/srv/a/.venv/bin/black", "/srv/a", undefined, "/srv/a/.venv");
    expect(planted.runsProjectCode).toBe(true);
    expect(planted.readWrite).not.toContain("/home/u/.cache/black");
    expect(planted.binds).toEqual([
      {
        source: expect.stringMatching(
          /^\/home\/u\/\.cache\/mcp-code-quality\/per-project\/black\/[0-9a-f]{20}$/,
        ),
        dest: "/home/u/.cache/black",
      },
    ]);
    const other = planProfile(host, read, "/srv/b/.venv/bin/black", "/srv/b", undefined, "/srv/b/.venv");
    expect(other.binds?.[0]?.source).not.toBe(planted.binds?.[0]?.source);
    // The server's own black shares the cache.
    expect(planProfile(host, read, "/usr/bin/black", "/srv/a").readWrite).toEqual(["/home/u/.cache/black"]);
  });

  it("the V8 code cache is read-only for every tool: the server alone writes it", () => {
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    const v8 = "/home/u/.cache/mcp-code-quality/v8-code-cache";
    const worker = planProfile(host, read, "/usr/bin/node", "/srv/a");
    expect(worker.readOnly).toContain(v8);
    expect(worker.readWrite).not.toContain(v8);
    // The server's producer names it as the cache its run fills.
    expect(planProfile(host, { ...read, caches: [v8] }, "/usr/bin/node", "/srv/a").readWrite).toContain(v8);
  });

  it("shows the scratch folders the launcher found in the command, each with its access", () => {
    const p = planProfile(
      host,
      {
        kind: "read",
        roots: ["/srv/a"],
        scratch: [
          { path: "/tmp/mcq-1000/mcq-pytest-x", access: "read-write" },
          { path: "/tmp/mcq-1000/mcq-black-y", access: "read-only" },
        ],
      },
      "/usr/bin/black",
      "/srv/a",
    );
    expect(p.readWrite).toContain("/tmp/mcq-1000/mcq-pytest-x");
    expect(p.readOnly).toContain("/tmp/mcq-1000/mcq-black-y");
    expect(p.readWrite).not.toContain("/tmp/mcq-1000");
    expect(p.readOnly).not.toContain("/tmp/mcq-1000");
  });

  it("a tool's own cache is writable for it alone; formatters that declare no cache get none", () => {
    const read = { kind: "read" as const, roots: ["/srv/a"] };
    const staticcheck = planProfile(host, read, "/home/u/go/bin/staticcheck", "/srv/a");
    expect(staticcheck.readWrite).toEqual(
      expect.arrayContaining(["/home/u/.cache/staticcheck", "/home/u/.cache/go-build", "/home/u/go/pkg/mod"]),
    );
    // The launcher makes these when missing (and only these: never a root).
    expect(staticcheck.caches).toEqual(
      expect.arrayContaining(["/home/u/.cache/staticcheck", "/home/u/.cache/go-build"]),
    );
    expect(staticcheck.caches).not.toContain("/srv/a");
    expect(planProfile(host, read, "/usr/local/go/bin/go", "/srv/a").readWrite).not.toContain(
      "/home/u/.cache/staticcheck",
    );
    // Go's settings file, for the go family only, bound when it exists at launch.
    expect(staticcheck.readOnlyIfPresent).toEqual(["/home/u/.config/go/env"]);
    expect(planProfile(host, read, "/usr/bin/mypy", "/srv/a").readOnlyIfPresent).toBeUndefined();
    for (const formatter of ["/usr/local/go/bin/gofmt", "/home/u/.cargo/bin/rustfmt"]) {
      const p = planProfile(host, read, formatter, "/srv/a");
      expect(p.readWrite, formatter).toEqual([]);
      expect(p.caches, formatter).toBeUndefined();
    }
  });

  it("a provider sees the requested files only, no scratch, no git, no shell", () => {
    const p = planProfile(
      host,
      { kind: "provider", roots: ["/srv/a"], files: ["/srv/a/x.py"], network: false },
      "/opt/agents/bin/claude",
      "/srv/a",
    );
    expect(p.readOnly).toEqual(expect.arrayContaining(["/srv/a/x.py", "/home/u/.claude", "/opt/agents"]));
    expect(p.readOnly).not.toContain("/srv/a");
    expect(p.readWrite).toEqual([]);
    expect(p.cwd).toBe("/tmp");
    expect(p.hidden.map((h) => h.path)).toEqual(["/usr/bin/git", "/usr/bin/sh", "/usr/lib/git-core"]);
    expect(p.network).toBe(false);
  });

  it("an executable outside every mount brings its prefix, never / or $HOME", () => {
    const p = planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/work/venv/bin/flake8", "/srv/a");
    expect(p.readOnly).toContain("/work/venv");
    const h = planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/home/u/bin/tool", "/srv/a");
    expect(h.readOnly).not.toContain("/home/u");
  });

  it("names tools by their facts key", () => {
    expect(factsKeyOf("/x/bin/dmypy")).toBe("mypy");
    expect(factsKeyOf("/x/bin/uv")).toBe("pip-audit");
    expect(factsKeyOf("/x/node_modules/typescript/bin/tsc")).toBe("tsc");
  });
});

describe("bwrapArgv", () => {
  it("mounts system, then private /tmp and $HOME, then shallower binds before deeper ones, then hidden paths", () => {
    const p = planProfile(
      host,
      { kind: "write", roots: ["/tmp/proj"], writableRoots: ["/tmp/proj"] },
      "/usr/bin/rustfmt",
      "/tmp/proj/src",
    );
    const argv = bwrapArgv(p, "/usr/bin/rustfmt", ["--check", "a.rs"]);
    const m = mounts(argv);
    expect(m.slice(0, 3)).toEqual(["--ro-bind /usr", "--symlink /bin", "--ro-bind /etc"]);
    expect(m.indexOf("--tmpfs /tmp")).toBeLessThan(m.indexOf("--bind /tmp/proj"));
    expect(m.indexOf("--tmpfs /home/u")).toBeLessThan(m.indexOf("--ro-bind /home/u/.pyenv"));
    expect(m).toContain("--chdir /tmp/proj/src");
    expect(argv).toEqual(expect.arrayContaining(["--unshare-pid", "--die-with-parent", "--unshare-net"]));
    // No capabilities in the host's namespaces, as root too; the kernel's settings read-only over /proc.
    expect(argv.join(" ")).toContain("--unshare-user --cap-drop ALL");
    expect(m.indexOf("--ro-bind /proc/sys")).toBe(m.indexOf("--proc /proc") + 1);
    expect(argv.slice(argv.indexOf("--"))).toEqual(["--", "/usr/bin/rustfmt", "--check", "a.rs"]);
  });

  it("a root server's tools get an unprivileged id inside their user namespace", () => {
    const p = planProfile(
      { ...host, ids: { uid: 65534, gid: 65534 } },
      { kind: "read", roots: ["/srv/a"] },
      "/usr/bin/ruff",
      "/srv/a",
    );
    const argv = bwrapArgv(p, "/usr/bin/ruff", []).join(" ");
    expect(argv).toContain("--unshare-user --cap-drop ALL");
    expect(argv).toContain("--uid 65534 --gid 65534");
    expect(
      bwrapArgv(
        planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/usr/bin/ruff", "/srv/a"),
        "/usr/bin/ruff",
        [],
      ),
    ).not.toContain("--uid");
  });

  it("go test's go writes Go's caches; its test binaries get them read-only in a nested sandbox", () => {
    const p = planProfile(
      host,
      { kind: "tests", roots: ["/srv/a"], writableRoots: ["/srv/a"], network: true, nestedTests: true },
      "/usr/local/go/bin/go",
      "/srv/a",
    );
    expect(p.runsProjectCode).toBe(false);
    expect(p.readWrite).toEqual(
      expect.arrayContaining(["/srv/a", "/home/u/.cache/go-build", "/home/u/go/pkg/mod"]),
    );
    expect(p.readOnlyForTests).toEqual(["/home/u/.cache/go-build", "/home/u/go/pkg/mod"]);
    expect(nestedTestsExec("/usr/bin/bwrap", p.readOnlyForTests ?? [])).toBe(
      "'/usr/bin/bwrap' '--dev-bind' '/' '/' '--ro-bind' '/home/u/.cache/go-build' '/home/u/.cache/go-build' " +
        "'--ro-bind' '/home/u/go/pkg/mod' '/home/u/go/pkg/mod' '--unshare-user' '--cap-drop' 'ALL' '--die-with-parent' '--'",
    );
    // A path go could not take as one field: no nested sandbox.
    expect(nestedTestsExec("/usr/bin/bwrap", ["/home/u/it's"])).toBeUndefined();
  });

  it("binds a per-project cache folder at the cache's own path", () => {
    const p = planProfile(
      host,
      { kind: "read", roots: ["/srv/a"] },
      "/srv/a/.venv/bin/black",
      "/srv/a",
      undefined,
      "/srv/a/.venv",
    );
    const argv = bwrapArgv(p, "/srv/a/.venv/bin/black", []);
    const at = argv.indexOf("/home/u/.cache/black");
    expect(argv[at - 2]).toBe("--bind");
    expect(argv[at - 1]).toBe(p.binds?.[0]?.source);
  });

  it("keeps the network namespace only when the profile has no network", () => {
    const p = planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/usr/bin/npm", "/srv/a");
    expect(bwrapArgv(p, "/usr/bin/npm", [])).not.toContain("--unshare-net");
  });

  it("covers hidden programs with /dev/null and hidden folders with an empty tmpfs", () => {
    const p = planProfile(
      host,
      { kind: "provider", roots: [], network: false },
      "/opt/agents/bin/claude",
      "/",
    );
    const argv = bwrapArgv(p, "/opt/agents/bin/claude", []).join(" ");
    expect(argv).toContain("--ro-bind /dev/null /usr/bin/git");
    expect(argv).toContain("--tmpfs /usr/lib/git-core");
  });

  it("visibleIn tells what a profile shows", () => {
    const p = planProfile(host, { kind: "read", roots: ["/srv/a"] }, "/usr/bin/mypy", "/srv/a");
    expect(visibleIn(p, "/srv/a/x.py")).toBe(true);
    expect(visibleIn(p, "/srv/ab/x.py")).toBe(false);
    expect(visibleIn(p, "/home/u/.ssh/id_rsa")).toBe(false);
    expect(visibleIn(p, "/usr/lib/x")).toBe(true);
  });
});
