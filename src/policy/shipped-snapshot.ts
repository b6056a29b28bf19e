/**
 * The shipped bundle's sources as parsed JSON, saved by `npm run build` next to this module
 * (dist/policy/shipped.json), so a server's start reads one JSON file instead of parsing the YAML and the
 * skills' front matter (~80-100 ms of a cold process, before the first tool call can be answered). It is
 * used only while it matches: a hash of every shipped source file's name and content is checked on load,
 * so an edit to policy/ without a rebuild falls back to the YAML.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { BundleData } from "./bundle.js";
import type { ValueLines } from "./bundle-error.js";
import { codePath } from "../package-root.js";

export const SHIPPED_SNAPSHOT_FILE = codePath("policy", "shipped.json");
/** Stands for the source directory in the saved paths, so the snapshot holds wherever the package is. */
const DIR_TOKEN = "@@POLICY_DIR@@";
const FORMAT = 1;

export interface ShippedSources {
  data: BundleData;
  conditionLines: Map<string, { file: string; at: ValueLines }>;
}

interface SnapshotFile {
  format: number;
  sourceHash: string;
  data: BundleData;
  conditionLines: [string, { file: string; at: ValueLines }][];
}

/** A file's bytes, its last component not followed if it is a link (the sources are the package's own). */
function readNoFollow(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The files the shipped bundle is read from, in a fixed order. */
function sourceFiles(dir: string): string[] {
  let skills: string[] = [];
  try {
    skills = fs
      .readdirSync(path.join(dir, "skills"))
      .filter((n) => n.endsWith(".md"))
      .sort()
      .map((n) => path.join("skills", n));
  } catch {
    /* no skills folder: the hash says so */
  }
  return ["principles.yaml", "policies.yaml", "evidence.yaml", ...skills];
}

/** sha256 over every source file's name and bytes; undefined when one cannot be read. */
export function shippedSourceHash(dir: string): string | undefined {
  const hash = crypto.createHash("sha256");
  try {
    for (const name of sourceFiles(dir)) {
      hash.update(`${name}\0`);
      hash.update(readNoFollow(path.join(dir, name)));
      hash.update("\0");
    }
  } catch {
    return undefined;
  }
  return hash.digest("hex");
}

/** The snapshot's sources when it exists and matches `dir`'s files, else undefined. */
export function loadShippedSnapshot(dir: string, file = SHIPPED_SNAPSHOT_FILE): ShippedSources | undefined {
  let text: string;
  try {
    text = readNoFollow(file).toString("utf8");
  } catch {
    return undefined;
  }
  try {
    const dirJson = JSON.stringify(dir).slice(1, -1);
    const snap = JSON.parse(text.split(DIR_TOKEN).join(dirJson)) as SnapshotFile;
    if (snap.format !== FORMAT || snap.sourceHash !== shippedSourceHash(dir)) return undefined;
    return { data: snap.data, conditionLines: new Map(snap.conditionLines) };
  } catch {
    return undefined;
  }
}

/** Writes the snapshot of `sources` read from `dir`: a temp file created exclusively, renamed into place. */
export function saveShippedSnapshot(
  dir: string,
  sources: ShippedSources,
  file = SHIPPED_SNAPSHOT_FILE,
): void {
  const sourceHash = shippedSourceHash(dir);
  if (!sourceHash) throw new Error(`cannot read the policy sources in ${dir}`);
  const snap: SnapshotFile = {
    format: FORMAT,
    sourceHash,
    data: sources.data,
    conditionLines: [...sources.conditionLines],
  };
  const dirJson = JSON.stringify(dir).slice(1, -1);
  const text = `${JSON.stringify(snap).split(dirJson).join(DIR_TOKEN)}\n`;
  const temp = `${file}.${process.pid}.${crypto.randomBytes(6).toString("hex")}.tmp`;
  fs.writeFileSync(temp, text, { flag: "wx", mode: 0o644 });
  try {
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}
