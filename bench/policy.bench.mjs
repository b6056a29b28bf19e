// Policy bundle: compile time (start-up and hooks pay it; `policy compile` also runs every example),
// one command check, one edit check, and the Claude Code hook as a process, side by side with a bare
// `node -e ""` start for scale.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, ms, timeIt } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(root, "dist", "cli.js");

export default async function run() {
  const { compileBundle } = await import(path.join(root, "dist/policy/compile.js"));
  const { checkCommand, checkEdit } = await import(path.join(root, "dist/policy/checks.js"));
  const compile = await timeIt(() => compileBundle(), 7);
  const verify = await timeIt(() => compileBundle({ verifyExamples: true }), 3);
  const bundle = await compileBundle();
  const site = { cwd: root, projectRoot: root, home: "/home/user" };
  const command = await timeIt(
    () =>
      checkCommand(
        bundle,
        { command: 'FOO=1 bash -c "cd x && git commit --no-verify -m wip" | tee log' },
        site,
      ),
    50,
  );
  const after = Array.from({ length: 200 }, (_, i) => `value_${i} = compute(${i})  # noqa: E501`).join("\n");
  const edit = await timeIt(() => checkEdit(bundle, { path: "src/app.py", before: "", after }), 50);
  const payload = JSON.stringify({
    tool_name: "Bash",
    cwd: root,
    tool_input: { command: "git push --force" },
  });
  const hook = await timeIt(
    () => spawnSync(process.execPath, [CLI, "hook", "claude-code"], { input: payload }),
    5,
  );
  const bare = await timeIt(() => spawnSync(process.execPath, ["-e", ""]), 5);
  return {
    title: "Policy bundle and checks (median ms)",
    rows: [
      { what: "compile bundle (start-up, hooks)", median_ms: ms(median(compile)) },
      { what: "compile + verify every example (policy compile)", median_ms: ms(median(verify)) },
      { what: "policy_check_command core (5 sub-commands)", median_ms: ms(median(command)) },
      { what: "policy_check_edit core (200 added lines)", median_ms: ms(median(edit)) },
      { what: "hook claude-code process (Bash payload)", median_ms: ms(median(hook)) },
      { what: 'node -e "" process, for scale', median_ms: ms(median(bare)) },
    ],
  };
}
