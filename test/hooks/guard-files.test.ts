/**
 * The guard protects itself (issue 38): the hook's bundle, start-up snapshot, compiled modules and policy
 * files are protected paths for commands and edits alike (`protected.guard`), and the installed command line
 * runs the snapshot blob only when its SHA-256 is the one it was installed with. A forged blob that answers
 * nothing (which the hook reads as "allowed") is proven harmful when trusted, and refused by the line.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

const BUNDLE = path.join(REPO_ROOT, "dist", "bundle");
const BLOB = path.join(BUNDLE, `hook-snapshot-${process.version}-${process.arch}.blob`);
let project: string;
let answerHook: (raw: string, env: NodeJS.ProcessEnv) => Promise<string>;

beforeAll(async () => {
  project = tempDir("mcq-guard-");
  ({ answerHook } = await import(path.join(REPO_ROOT, "dist", "hooks", "claude-code.js")));
});

async function decide(tool: string, input: Record<string, unknown>) {
  const out = await answerHook(JSON.stringify({ tool_name: tool, cwd: project, tool_input: input }), {
    CLAUDE_PROJECT_DIR: project,
    HOME: os.homedir(),
  });
  if (out === "") return { decision: "allow", reason: "" };
  const h = JSON.parse(out).hookSpecificOutput;
  return { decision: h.permissionDecision as string, reason: h.permissionDecisionReason as string };
}

describe("the guard's own files", () => {
  it("denies commands that rebuild or replace them", async () => {
    const lines = [
      `node --snapshot-blob ${BLOB} --build-snapshot /tmp/x.js`,
      `cp /tmp/x.cjs ${path.join(BUNDLE, "hook.cjs")}`,
      `echo '{}' > ${path.join(REPO_ROOT, "dist", "policy", "shipped.json")}`,
      `sed -i 1d ${path.join(REPO_ROOT, "policy", "policies.yaml")}`,
      `mv /tmp/evil.cjs ${path.join(BUNDLE, "hook.cjs")}`,
      `python3 -c "open('${path.join(BUNDLE, "hook.cjs")}', 'w').write('')"`,
    ];
    for (const line of lines) {
      const r = await decide("Bash", { command: line });
      expect(r.decision, line).toBe("deny");
      expect(r.reason, line).toContain("protected.guard");
    }
    // A snapshot of one's own elsewhere is no business of the guard: its script in the project is read and
    // allowed; one outside the allowed paths cannot be read, so the human is asked (not the guard's denial).
    fs.writeFileSync(path.join(project, "x.js"), "console.log(1);\n");
    const own = `node --snapshot-blob /tmp/mine.blob --build-snapshot ${path.join(project, "x.js")}`;
    expect((await decide("Bash", { command: own })).decision).toBe("allow");
    const outside = await decide("Bash", {
      command: "node --snapshot-blob /tmp/mine.blob --build-snapshot /tmp/x.js",
    });
    expect(outside.decision).toBe("ask");
    expect(outside.reason).toContain("command.undecidable");
    // The human and the agent are told why it could not be read.
    expect(outside.reason).toContain("(undecided: the script /tmp/x.js ");
    expect(outside.reason).not.toContain("protected.guard");
  });

  it("denies an edit of them", async () => {
    const r = await decide("Write", {
      file_path: path.join(REPO_ROOT, "policy", "policies.yaml"),
      content: "policies: []\n",
    });
    expect(r.decision).toBe("deny");
    expect(r.reason).toContain("protected.guard");
  });

  it("runs the blob only when its hash is the installed one: a forged blob that answers nothing is not trusted", () => {
    const dir = tempDir("mcq-forged-");
    const script = path.join(dir, "forged.js");
    fs.writeFileSync(
      script,
      "require('v8').startupSnapshot.setDeserializeMainFunction(() => process.exit(0));\n",
    );
    const forged = path.join(dir, "hook.blob");
    const built = spawnSync(process.execPath, ["--snapshot-blob", forged, "--build-snapshot", script], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(built.status, built.stderr).toBe(0);
    const input = JSON.stringify({
      tool_name: "Bash",
      cwd: project,
      tool_input: { command: "git commit --no-verify -m x" },
    });
    const plain = `'${process.execPath}' '${path.join(BUNDLE, "hook.cjs")}' claude-code`;
    const run = (line: string) =>
      spawnSync("sh", ["-c", line], {
        input,
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, CLAUDE_PROJECT_DIR: project },
      });
    return import(path.join(REPO_ROOT, "dist", "hooks", "hook-snapshot.js")).then(
      ({ snapshotCommand, sha256Of, statIdentityOf }) => {
        // A line installed with the forged blob trusts it (its identity and hash): every call allowed.
        const trusting = run(snapshotCommand(process.execPath, forged, plain));
        expect(trusting.status).toBe(0);
        expect(trusting.stdout).toBe("");
        // A line carrying the real blob's hash (and no identity) does not run the forged one: hook.cjs denies.
        const guarded = run(snapshotCommand(process.execPath, forged, plain, sha256Of(BLOB), null));
        expect(guarded.status, guarded.stderr).toBe(0);
        expect(JSON.parse(guarded.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
        // Installed over the real blob, then the blob replaced in place with its times set back, and by a
        // rename: neither its identity (the change time) nor its hash is the installed one.
        const target = path.join(dir, "installed.blob");
        fs.copyFileSync(BLOB, target);
        expect(statIdentityOf(target)).toBeDefined();
        const line = snapshotCommand(process.execPath, target, plain);
        const decided = () => JSON.parse(run(line).stdout).hookSpecificOutput.permissionDecision;
        expect(decided()).toBe("deny");
        const { atime, mtime } = fs.statSync(target);
        fs.writeFileSync(target, fs.readFileSync(forged));
        fs.utimesSync(target, atime, mtime);
        expect(decided()).toBe("deny");
        fs.copyFileSync(forged, `${target}.new`);
        fs.renameSync(`${target}.new`, target);
        expect(decided()).toBe("deny");
      },
    );
  });
});
