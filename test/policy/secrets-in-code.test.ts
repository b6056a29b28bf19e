/**
 * An unquoted value is a secret candidate only where the file's syntax makes it a literal (.env, YAML, INI,
 * shell): in source code `secret_key = self.secret_keys[-1]`, `password = sys.argv[1]` or Go's
 * `token = tokens[len(tokens)-1]` is an expression (gitleaks finds no leak in them either). Through
 * policy_check_edit on the real server and real `git commit`s with our hook installed; the same unquoted
 * value in a `.env` is still refused.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { gitEnv } from "../helpers/git-identity.js";

const CODE: Record<string, string> = {
  "src/signer.py": [
    "import sys",
    "",
    "",
    "class Signer:",
    "    def __init__(self, secret_keys, secrets):",
    "        self.secret_keys = secret_keys",
    "        self.secrets = secrets",
    "",
    "    def key(self):",
    "        secret_key = self.secret_keys[-1]",
    "        secret = self.secrets[-1]",
    "        password = sys.argv[1]",
    "        return secret_key, secret, password",
    "",
  ].join("\n"),
  "auth/tokens.go":
    "package auth\n\nfunc last(tokens []string) string {\n\tvar token string\n\ttoken = tokens[len(tokens)-1]\n\treturn token\n}\n",
};
const DOTENV = "SECRET_KEY=q8Zr4vT1xN7bK2mW9pL5\n";

let project: string;
let server: Connected;
const env = gitEnv;
const git = (...args: string[]) => execFileSync("git", args, { cwd: project, encoding: "utf8", env });

beforeAll(async () => {
  project = tempDir("mcq-secrets-code-");
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(project, "README.md"), "# demo\n");
  git("add", "-A");
  git("commit", "-qm", "init");
  server = await connectStdio({ args: ["--allowed-paths", project], cwd: project });
});
afterAll(async () => server?.close());

describe("unquoted values in source code are expressions, not secrets", () => {
  it("policy_check_edit allows them in Python and Go, and blocks the unquoted value in a .env", async () => {
    for (const [file, after] of Object.entries(CODE)) {
      const r = await server.call("policy_check_edit", { path: path.join(project, file), after });
      expect(r.status, `${file}: ${JSON.stringify(r)}`).toBe("allowed");
    }
    const dotenv = await server.call("policy_check_edit", {
      path: path.join(project, ".env"),
      after: DOTENV,
    });
    expect(dotenv.status).toBe("blocked");
    expect(JSON.stringify(dotenv)).toContain("secrets.in_edit");
  });

  it.skipIf(missing("git"))("a real commit of them passes our hook; the .env is refused", () => {
    const install = spawnSync(
      process.execPath,
      [CLI, "hook", "install", "pre-commit", "--project", project],
      {
        encoding: "utf8",
        env,
      },
    );
    expect(install.status, install.stderr).toBe(0);
    const file = "src/signer.py";
    fs.mkdirSync(path.join(project, "src"), { recursive: true });
    fs.writeFileSync(path.join(project, file), CODE[file] as string);
    git("add", file);
    const ok = spawnSync("git", ["commit", "-m", "signer"], { cwd: project, encoding: "utf8", env });
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    fs.writeFileSync(path.join(project, ".env"), DOTENV);
    git("add", ".env");
    const refused = spawnSync("git", ["commit", "-m", "env"], { cwd: project, encoding: "utf8", env });
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toContain(".env: secrets.in_edit [block]");
  });
});
