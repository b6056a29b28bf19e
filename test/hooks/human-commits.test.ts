/**
 * The promise "never blocks a human's own commit with an agent's rule", through real `git commit`s: a
 * commit is judged on what it changes, not on what its files already held. With the pre-commit framework's
 * policy hook (`hook pre-commit --files`, installed by `pre-commit install`): one comment line added to a
 * file that already holds a `# pyright: ignore`, or a version bumped in a pyproject.toml that already
 * ignores a rule, passes, and `pre-commit run --all-files` passes on upstream code. With our git hook: a
 * `git mv` of a file holding a bare `# noqa` or of tsconfig.json passes, and a merge commit is judged on what
 * its resolution adds against both parents, not on the other branch's commits. Each also refuses what the
 * change itself adds.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const PRE_COMMIT_BIN = path.join(REPO_ROOT, ".tools", "pre-commit", "bin");
const baseEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

function scratch(prefix: string, env: NodeJS.ProcessEnv) {
  const repo = tempDir(prefix);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", env });
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.writeFileSync(path.join(repo, file), text);
  };
  const run = (cmd: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(cmd, args, {
      cwd: repo,
      encoding: "utf8",
      env: { ...env, ...extra },
      timeout: 300_000,
    });
    return { code: r.status, output: r.stdout + r.stderr };
  };
  git("init", "-q", "-b", "main");
  return {
    repo,
    git,
    write,
    run,
    commit: (m: string, extra: NodeJS.ProcessEnv = {}) => run("git", ["commit", "-m", m], extra),
  };
}

const UPSTREAM_SIGNER = "def sign(value):\n    return value.encode()  # pyright: ignore\n";
const UPSTREAM_PYPROJECT =
  '[project]\nname = "demo"\nversion = "1.0"\n\n[tool.ruff.lint]\nignore = ["UP038"]\n';

describe.skipIf(missing("pre-commit", [PRE_COMMIT_BIN]) || missing("git"))(
  "the pre-commit framework's policy hook judges the staged change",
  () => {
    let s: ReturnType<typeof scratch>;
    beforeAll(() => {
      const bin = tempDir("mcq-human-bin-");
      fs.writeFileSync(
        path.join(bin, "mcp-code-quality"),
        `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`,
        { mode: 0o755 },
      );
      s = scratch("mcq-human-fw-", {
        ...baseEnv,
        PATH: [bin, PRE_COMMIT_BIN, TOOLS_VENV_BIN, process.env.PATH ?? ""].join(":"),
        PRE_COMMIT_HOME: tempDir("mcq-human-fw-home-"),
      });
      // Upstream code, committed before any hook: a broad suppression and an ignored rule.
      s.write("src/signer.py", UPSTREAM_SIGNER);
      s.write("pyproject.toml", UPSTREAM_PYPROJECT);
      s.write(
        ".pre-commit-config.yaml",
        [
          "repos:",
          "  - repo: local",
          "    hooks:",
          "      - id: mcp-code-quality-policy",
          "        name: policy",
          "        entry: mcp-code-quality hook pre-commit --files",
          "        language: system",
          "        types: [text]",
          "        require_serial: true",
          "",
        ].join("\n"),
      );
      s.git("add", "-A");
      s.git("commit", "-qm", "upstream");
      const install = s.run(path.join(PRE_COMMIT_BIN, "pre-commit"), ["install"]);
      expect(install.code, install.output).toBe(0);
    });

    it("a comment line added beside an upstream `# pyright: ignore` passes; a new broad suppression is refused", () => {
      s.write("src/signer.py", `# Signs values.\n${UPSTREAM_SIGNER}`);
      s.git("add", "-A");
      const ok = s.commit("a comment");
      expect(ok.code, ok.output).toBe(0);
      s.write("src/signer.py", `# Signs values.\n${UPSTREAM_SIGNER}LIMIT = 3  # noqa\n`);
      s.git("add", "-A");
      const refused = s.commit("a broad noqa");
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain("src/signer.py: suppress.broad [block]");
      expect(refused.output).not.toContain("pyright");
      s.git("reset", "-q", "--hard");
    });

    it("a version bumped in a pyproject.toml that already ignores a rule passes; a new ignore is refused", () => {
      s.write("pyproject.toml", UPSTREAM_PYPROJECT.replace('version = "1.0"', 'version = "1.1"'));
      s.git("add", "-A");
      const ok = s.commit("bump");
      expect(ok.code, ok.output).toBe(0);
      s.write(
        "pyproject.toml",
        UPSTREAM_PYPROJECT.replace('version = "1.0"', 'version = "1.1"') + 'extend-ignore = ["E501"]\n',
      );
      s.git("add", "-A");
      const refused = s.commit("ignore more");
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain("pyproject.toml: config.weakened [confirm]");
      // A human's own config change is theirs to make: confirmed, it commits.
      const confirmed = s.commit("ignore more", { MCQ_ALLOW_PROTECTED: "1" });
      expect(confirmed.code, confirmed.output).toBe(0);
    });

    it("pre-commit run --all-files passes on upstream code: no file is changed", () => {
      const all = s.run(path.join(PRE_COMMIT_BIN, "pre-commit"), ["run", "--all-files"]);
      expect(all.code, all.output).toBe(0);
    });
  },
);

describe.skipIf(missing("git"))("our git hook on renames and merges", () => {
  let s: ReturnType<typeof scratch>;
  beforeAll(() => {
    s = scratch("mcq-human-git-", baseEnv);
    s.write("pkg/legacy.py", "import os  # noqa\n");
    s.write("tsconfig.json", '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n');
    s.write("merged.py", "value = 1\n");
    s.write("theirs.py", "value = 1\n");
    s.git("add", "-A");
    s.git("commit", "-qm", "upstream");
    // Another branch's commits, made before (or past) the hook: a broad suppression in each file.
    s.git("checkout", "-qb", "feature");
    s.write("merged.py", "import os  # noqa\n");
    s.write("theirs.py", "value = 1  # type: ignore\n");
    s.git("commit", "-qam", "feature");
    s.git("checkout", "-q", "main");
    s.write("merged.py", "value = 3\n");
    s.git("commit", "-qam", "main");
    const r = spawnSync(process.execPath, [CLI, "hook", "install", "pre-commit", "--project", s.repo], {
      encoding: "utf8",
      env: baseEnv,
    });
    expect(r.status, r.stderr).toBe(0);
  });

  it("git mv of a file that already holds a bare `# noqa` passes", () => {
    s.git("mv", "pkg/legacy.py", "pkg/old_legacy.py");
    const r = s.commit("rename");
    expect(r.code, r.output).toBe(0);
  });

  it("git mv tsconfig.json tsconfig.base.json passes", () => {
    s.git("mv", "tsconfig.json", "tsconfig.base.json");
    const r = s.commit("rename the config");
    expect(r.code, r.output).toBe(0);
  });

  it("git rm of a lint configuration asks the human to confirm, and commits when they do", () => {
    s.write("tsconfig.json", '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n');
    s.git("add", "tsconfig.json");
    expect(s.commit("a config", { MCQ_ALLOW_PROTECTED: "1" }).code).toBe(0);
    s.git("rm", "-q", "tsconfig.json");
    const asked = s.commit("drop the config");
    expect(asked.code, asked.output).toBe(1);
    expect(asked.output).toContain("tsconfig.json (deleted): config.weakened [confirm]");
    const ok = s.commit("drop the config", { MCQ_ALLOW_PROTECTED: "1" });
    expect(ok.code, ok.output).toBe(0);
  });

  it("a merge commit is judged on what its resolution adds against both parents", () => {
    const merge = s.run("git", ["merge", "--no-ff", "feature"]);
    expect(merge.code, merge.output).not.toBe(0); // merged.py conflicts; theirs.py merges cleanly
    // A resolution that adds a broad suppression of its own is refused...
    s.write("merged.py", "import os  # noqa\ntotal = os.sep  # type: ignore\n");
    s.git("add", "merged.py");
    const refused = s.run("git", ["commit", "--no-edit"]);
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain("merged.py: suppress.broad [block]");
    expect(refused.output).not.toContain("theirs.py");
    // ...while one that keeps the other branch's line (committed there) and adds a clean one passes.
    s.write("merged.py", "import os  # noqa\ntotal = 2\n");
    s.git("add", "merged.py");
    const ok = s.run("git", ["commit", "--no-edit"]);
    expect(ok.code, ok.output).toBe(0);
  });
});
