// Policy bundle: compile time (start-up pays it; `policy compile` also runs every example), one command
// check, one edit check, a 2 MB lock-file edit (the review's stall), and the Claude Code hook as a process
// (dist/bundle/hook.cjs, the installed entry point, and the unbundled dist/hook.js) for a Bash and a Write
// payload, interleaved with a bare
// `node -e ""` start so that all three share the machine's load: medians of wall time, and of CPU time
// (user + system, from /usr/bin/time when it is there: each sample is 5 runs in one shell loop, since it counts
// in 10 ms steps), with the hook's ratio to Node's start.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, ms, timeIt } from "./stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOOK = path.join(root, "dist", "bundle", "hook.cjs");
const UNBUNDLED = path.join(root, "dist", "hook.js");
const BLOB = path.join(root, "dist", "bundle", `hook-snapshot-${process.version}-${process.arch}.blob`);
const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** Runs per sample: /usr/bin/time counts CPU in 10 ms steps, so a sample is REPS runs in one shell loop. */
const REPS = 5;
const q = (w) => `'${String(w).replace(/'/g, `'\\''`)}'`;
let inputFile;

/**
 * Runs a process (node with `args`, or `argv` as given) REPS times in a shell loop, each fed `input` on stdin,
 * returning per run its wall time and (with /usr/bin/time) its CPU time, user + system, in ms.
 */
function measure(args, input, argv = [process.execPath, ...args]) {
  inputFile ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-input-")), "input.json");
  fs.writeFileSync(inputFile, input ?? "");
  const loop = `for i in $(seq ${REPS}); do ${argv.map(q).join(" ")} < ${q(inputFile)} > /dev/null; done`;
  const t = performance.now();
  const r = TIME
    ? spawnSync(TIME, ["-f", "mcq-cpu %U %S", "sh", "-c", loop], { encoding: "utf8" })
    : spawnSync("sh", ["-c", loop], { encoding: "utf8" });
  const wall = (performance.now() - t) / REPS;
  const m = /mcq-cpu ([\d.]+) ([\d.]+)/.exec(r.stderr ?? "");
  return { wall, cpu: m ? ((Number(m[1]) + Number(m[2])) * 1000) / REPS : undefined };
}

export default async function run() {
  const { compileBundle } = await import(path.join(root, "dist/policy/compile.js"));
  const { checkCommand, checkEdit } = await import(path.join(root, "dist/policy/checks.js"));
  const compile = await timeIt(() => compileBundle(), 7);
  const verify = await timeIt(() => compileBundle({ verifyExamples: true }), 3);
  const bundle = await compileBundle();
  const site = { cwd: root, projectRoot: root, home: "/home/user", gitConfig: () => null };
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
  const edit = await timeIt(
    () => checkEdit(bundle, { path: "src/app.py", before: "", after }, { resolve: false }),
    50,
  );
  const deps = Array.from(
    { length: 15_500 },
    (_, i) =>
      `    "node_modules/pkg-${i}": { "version": "1.0.${i}", "resolved": "https://registry.npmjs.org/pkg-${i}/-/pkg-${i}-1.0.${i}.tgz" },`,
  );
  const lock = `{\n  "packages": {\n${deps.join("\n")}\n  }\n}\n`;
  const lockEdit = await timeIt(
    () =>
      checkEdit(
        bundle,
        { path: "package-lock.json", before: lock, after: lock.split('"1.0.').join('"2.0.') },
        { resolve: false },
      ),
    3,
  );

  const project = fs.mkdtempSync(path.join(os.tmpdir(), "mcq-bench-hook-"));
  fs.writeFileSync(path.join(project, "app.py"), "import os\n\nprint(os.getcwd())\n");
  const bash = JSON.stringify({
    tool_name: "Bash",
    cwd: project,
    tool_input: { command: "git push --force" },
  });
  const write = JSON.stringify({
    tool_name: "Write",
    cwd: project,
    tool_input: { file_path: path.join(project, "app.py"), content: "import os\n\nprint(os.sep)\n" },
  });
  const env = process.env;
  process.env.CLAUDE_PROJECT_DIR = project;
  const { ensureSnapshotBlob, snapshotCommand } = await import(
    path.join(root, "dist/hooks/hook-snapshot.js")
  );
  const { claudeCommandLine } = await import(path.join(root, "dist/hooks/install.js"));
  const snapshot = ensureSnapshotBlob().blob === BLOB;
  // The line `hook install claude-code` writes (sh, the input read once, the snapshot, the fail-closed wrapper).
  const line = claudeCommandLine(
    snapshotCommand(process.execPath, BLOB, `'${process.execPath}' '${HOOK}' claude-code`),
  );
  const runs = {
    bare: [],
    bash: [],
    write: [],
    bashUnbundled: [],
    writeUnbundled: [],
    bashSnap: [],
    writeSnap: [],
    writeLine: [],
    bashLine: [],
  };
  measure(["-e", ""]);
  measure([HOOK, "claude-code"], bash);
  for (let i = 0; i < 9; i++) {
    runs.bare.push(measure(["-e", ""]));
    if (snapshot) {
      runs.bashSnap.push(measure(["--snapshot-blob", BLOB, "claude-code"], bash));
      runs.writeSnap.push(measure(["--snapshot-blob", BLOB, "claude-code"], write));
      runs.writeLine.push(measure([], write, ["sh", "-c", line]));
      runs.bashLine.push(measure([], bash, ["sh", "-c", line]));
    }
    runs.bash.push(measure([HOOK, "claude-code"], bash));
    runs.write.push(measure([HOOK, "claude-code"], write));
    runs.bashUnbundled.push(measure([UNBUNDLED, "claude-code"], bash));
    runs.writeUnbundled.push(measure([UNBUNDLED, "claude-code"], write));
  }
  process.env = env;
  fs.rmSync(project, { recursive: true, force: true });
  const wall = (k) => median(runs[k].map((r) => r.wall));
  const cpu = (k) => (runs[k][0].cpu === undefined ? undefined : median(runs[k].map((r) => r.cpu)));
  const ratio = (k) =>
    `${(wall(k) / wall("bare")).toFixed(2)}× wall${cpu(k) !== undefined ? `, ${(cpu(k) / cpu("bare")).toFixed(2)}× cpu` : ""}`;
  const row = (what, k) => ({
    what,
    median_ms: ms(wall(k)),
    ...(cpu(k) !== undefined ? { cpu_ms: ms(cpu(k)) } : {}),
    ...(k === "bare" ? {} : { vs_node: ratio(k) }),
  });
  return {
    title: "Policy bundle, checks and the Claude Code hook (median ms)",
    rows: [
      { what: "compile bundle (start-up)", median_ms: ms(median(compile)) },
      { what: "compile + verify every example (policy compile)", median_ms: ms(median(verify)) },
      { what: "policy_check_command core (5 sub-commands)", median_ms: ms(median(command)) },
      { what: "policy_check_edit core (200 added lines)", median_ms: ms(median(edit)) },
      {
        what: "policy_check_edit core, replace_all over a 2 MB package-lock.json",
        median_ms: ms(median(lockEdit)),
      },
      ...(snapshot
        ? [
            row("installed hook (start-up snapshot), Bash payload", "bashSnap"),
            row("installed hook (start-up snapshot), Write payload", "writeSnap"),
            row("installed command line through sh, Bash payload", "bashLine"),
            row("installed command line through sh, Write payload", "writeLine"),
          ]
        : []),
      row("hook claude-code process, Bash payload", "bash"),
      row("hook claude-code process, Write payload", "write"),
      row("unbundled dist/hook.js, Bash payload", "bashUnbundled"),
      row("unbundled dist/hook.js, Write payload", "writeUnbundled"),
      row('node -e "" process, side by side', "bare"),
    ],
    notes: [
      'The hook rows are processes of the start-up snapshot (node --snapshot-blob, what the installed line runs), of dist/bundle/hook.cjs (its fallback) and of the unbundled dist/hook.js, interleaved with node -e "" runs.',
    ],
  };
}
