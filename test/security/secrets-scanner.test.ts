/**
 * security_scan's `secrets` scanner (registered for every language in the scanner registry): the same
 * detection as the policy's (secretlint's recommended preset in-process, plus literal credentials assigned
 * to credential names), over a git work tree's tracked and unignored files or a walk that skips dependency
 * folders; placeholders, environment lookups, binary files and ignored files are not findings. Real files,
 * real secretlint.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/engine/tool.js";
import { securityScanners } from "../../src/adapters/security-scanners.js";
import "../../src/adapters/secrets/index.js";
import { tempDir } from "../helpers/tools.js";

function project(git: boolean): string {
  const dir = fs.realpathSync(tempDir("mcq-secrets-scan-"));
  const files: Record<string, string | Buffer> = {
    "app/settings.py": 'DEBUG = False\nAWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ha4Lm2b"\n',
    "app/notify.js":
      "const url = 'https://hooks.slack.com/services/T01234567/B01234567/abcdefghijklmnopqrstuvwx';\n",
    "config/db.rb": 'DB_PASSWORD = "hunter2-Pr0d-9x7q"\n',
    "app/env.py": 'import os\nAWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]\n',
    "app/template.env": 'DB_PASSWORD="<your-password-here>"\n',
    "docs/aws.md": "Example key id: AKIAIOSFODNN7EXAMPLE\n",
    "blob.bin": Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('DB_PASSWORD = "hunter2-Pr0d-9x7q"\n')]),
    "node_modules/dep/index.js": 'const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";\n',
    "local.secret.py": 'API_KEY = "k3y-0123456789abcdef"\n',
  };
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  if (git) {
    fs.writeFileSync(path.join(dir, ".gitignore"), "node_modules/\nlocal.secret.py\n");
    execFileSync("git", ["init", "-q"], { cwd: dir });
  } else fs.rmSync(path.join(dir, "local.secret.py"));
  return dir;
}

const scanner = () => {
  const s = securityScanners().find((x) => x.name === "secrets");
  if (!s?.scan) throw new Error("no secrets scanner registered");
  return s;
};

describe("the secrets scanner", () => {
  it("is registered for every language", () => {
    expect(scanner()).toMatchObject({ languages: "any", kind: "secrets" });
  });

  for (const git of [true, false])
    it(`finds the secrets, not the look-alikes (${git ? "a git work tree" : "a plain folder"})`, async () => {
      const dir = project(git);
      const r = await scanner().scan!({} as ToolContext, { target: dir, severity: "low", confidence: "low" });
      const found = r.findings.map((f) => `${path.relative(dir, f.file)}:${f.line}:${f.rule_id}`).sort();
      expect(found).toEqual([
        "app/notify.js:1:slack/IncomingWebhook",
        "app/settings.py:2:aws/AWSSecretAccessKey",
        "config/db.rb:1:mcp-code-quality/secret-assignment/SecretAssignment",
      ]);
      // Secrets are masked in what the scanner reports.
      expect(JSON.stringify(r.findings)).not.toContain("hunter2-Pr0d-9x7q");
      expect(r.summary).toMatchObject({ high: 3, medium: 0, low: 0 });
    });
});

describe("the credential-name rule's quick check", () => {
  it("still finds names that RE2's case folding matches (ſ for s, the Kelvin sign for k), and nothing without one", async () => {
    const { findSecrets } = await import("../../src/policy/secrets.js");
    const found = await findSecrets(
      'DB_PAſſWORD = "hunter2-Pr0d-9x7q"\nAPI_\u212AEY = "k3y-0123456789abcdef"\nplain = "hunter2-Pr0d-9x7q"\n',
    );
    expect(found.map((f) => [f.rule, f.line])).toEqual([
      ["mcp-code-quality/secret-assignment", 1],
      ["mcp-code-quality/secret-assignment", 2],
    ]);
    expect(await findSecrets('name = "hunter2-Pr0d-9x7q"\nvalue = "k3y-0123456789abcdef"\n')).toEqual([]);
  });
});
