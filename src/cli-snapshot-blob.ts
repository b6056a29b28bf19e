/**
 * The command line's start-up snapshot (src/cli-snapshot.ts): where its blob lives and how it is built.
 *
 * The blob sits beside the bundle it was built from (dist/bundle), as writable as the code itself, named by
 * the Node version and the machine (`uname -m`) that built it, as bin/mcp-code-quality looks it up: a blob
 * only loads in the Node that made it. It is built by `npm run build`, checked to answer before it is
 * renamed into place; where it cannot be built, the command line simply runs from its modules.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { codePath } from "./package-root.js";
import { checkHelp } from "./check/options.js";

const BUNDLE_DIR = codePath("bundle");
export const CLI_SNAPSHOT_BUNDLE = path.join(BUNDLE_DIR, "cli-snapshot.cjs");
/** Building loads ~6 MB of JavaScript and writes ~20 MB; a busy machine takes seconds. */
const BUILD_TIMEOUT_MS = 180_000;

/** The blob for this Node: dist/bundle/cli-snapshot-v20.20.2-x86_64.blob. */
export function cliSnapshotBlobPath(version = process.version, machine = os.machine()): string {
  return path.join(BUNDLE_DIR, `cli-snapshot-${version}-${machine}.blob`);
}

/**
 * Whether `blob` loads in this Node and answers `check --help` as the modules do. (Node itself takes a first
 * argument that is one of its own options, as `--version`: the command line's first argument must be a word.)
 */
function answers(blob: string): boolean {
  const r = spawnSync(process.execPath, ["--snapshot-blob", blob, "check", "--help"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  return r.status === 0 && r.stdout.startsWith(checkHelp().split("\n")[0] ?? "");
}

/**
 * Which Node built which blob, for bin/mcp-code-quality: two lines, this Node's executable and the blob's
 * name. The command finds the `node` on PATH with no process started, and when it is that same file (`-ef`:
 * device and inode) and not newer than this record, runs its blob without asking `node --version` and
 * `uname -m` (two processes, ~6 ms of every fresh check); anything else asks as before.
 */
export const CLI_SNAPSHOT_BUILT_BY = path.join(BUNDLE_DIR, "cli-snapshot.built-by");

function writeBuiltBy(blob: string): void {
  const tmp = `${CLI_SNAPSHOT_BUILT_BY}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(tmp, `${process.execPath}\n${path.basename(blob)}\n`, { flag: "wx", mode: 0o644 });
    fs.renameSync(tmp, CLI_SNAPSHOT_BUILT_BY);
  } catch {
    // Only the shortcut is lost: the command asks node for its version.
    fs.rmSync(tmp, { force: true });
  }
}

/** Builds the blob for this Node (replacing an older one); undefined, or why it could not be built. */
export function buildCliSnapshotBlob(): string | undefined {
  const blob = cliSnapshotBlobPath();
  if (!fs.existsSync(CLI_SNAPSHOT_BUNDLE)) return `${CLI_SNAPSHOT_BUNDLE} is missing (run npm run build)`;
  const tmp = `${blob}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    // Exclusive create: the build writes into a name nobody else holds, then it is renamed into place.
    fs.closeSync(fs.openSync(tmp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o644));
  } catch (err) {
    return `cannot write beside ${CLI_SNAPSHOT_BUNDLE}: ${(err as Error).message}`;
  }
  try {
    const r = spawnSync(process.execPath, ["--snapshot-blob", tmp, "--build-snapshot", CLI_SNAPSHOT_BUNDLE], {
      encoding: "utf8",
      timeout: BUILD_TIMEOUT_MS,
      // Nothing of this shell's environment may steer what the modules do while they load.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    if (r.status !== 0) {
      const why = (r.stderr || r.error?.message || `exit ${r.status}`)
        .split("\n")
        .find(
          (l) =>
            l.trim() && !/Warning|not yet fully verified|may still work|issue tracker|trace-warnings/.test(l),
        );
      return `building the command line's snapshot failed: ${why ?? `exit ${r.status}`}`;
    }
    if (!answers(tmp)) return "the built command line snapshot does not answer `check --help`; not used";
    fs.renameSync(tmp, blob);
    writeBuiltBy(blob);
    return undefined;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
