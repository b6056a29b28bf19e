/**
 * Secret detection measured against gitleaks (its maintained rules and entropy checks), on a corpus of
 * real-shaped secrets (made-up values in each provider's format: cloud keys, tokens, private keys, .env and
 * YAML values, typed declarations) and placeholders or look-alikes (documentation keys, references to the
 * environment, hashes, header and field names). Each item is a file of its own; gitleaks scans them all
 * at once (`gitleaks dir`), ours is findSecrets, the detection policy_check_edit and both hooks use. Ours
 * must find at least every secret gitleaks finds (recall at least its) with no more false positives; the
 * figures are printed (docs/policy.md quotes them).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findSecrets } from "../../src/policy/secrets.js";
import { REPO_ROOT } from "../helpers/server.js";
import { missing, tempDir, TOOLS_GO_BIN } from "../helpers/tools.js";
import { findExecutable } from "../../src/exec/which.js";

interface Item {
  path: string;
  text: string;
  expect: "secret" | "none";
  kind: string;
}

const CORPUS: Item[] = fs
  .readFileSync(path.join(REPO_ROOT, "test", "policy", "corpus", "secrets.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Item);

function score(found: boolean[]) {
  const secrets = CORPUS.filter((c) => c.expect === "secret").length;
  return {
    found: found.filter((f, i) => f && CORPUS[i]?.expect === "secret").length,
    of: secrets,
    false_positives: CORPUS.filter((c, i) => found[i] && c.expect !== "secret").map((c) => c.kind),
    missed: CORPUS.filter((c, i) => !found[i] && c.expect === "secret").map((c) => c.kind),
  };
}

describe("secrets: ours against gitleaks on the same corpus", () => {
  it("the corpus holds enough of each", () => {
    expect(CORPUS.filter((c) => c.expect === "secret").length).toBeGreaterThanOrEqual(40);
    expect(CORPUS.filter((c) => c.expect === "none").length).toBeGreaterThanOrEqual(30);
  });

  it.skipIf(missing("gitleaks", [TOOLS_GO_BIN]))(
    "finds every secret gitleaks finds, with no more false positives",
    async () => {
      const dir = tempDir("mcq-secrets-");
      CORPUS.forEach((c, i) => {
        const file = path.join(dir, String(i).padStart(3, "0"), c.path);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, c.text);
      });
      const report = path.join(dir, "report.json");
      const gitleaks = findExecutable("gitleaks", [TOOLS_GO_BIN]) as string;
      const run = spawnSync(
        gitleaks,
        ["dir", dir, "--no-banner", "--report-format", "json", "--report-path", report, "--exit-code", "0"],
        { encoding: "utf8", timeout: 120_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      const leaks = JSON.parse(fs.readFileSync(report, "utf8")) as { File: string }[];
      const hit = new Set(leaks.map((l) => Number(path.relative(dir, l.File).split(path.sep)[0])));
      const theirs = score(CORPUS.map((_, i) => hit.has(i)));
      const ours = score(
        await Promise.all(CORPUS.map(async (c) => (await findSecrets(c.text, c.path)).length > 0)),
      );
      console.log(`secrets corpus: gitleaks ${JSON.stringify(theirs)}; ours ${JSON.stringify(ours)}`);
      // Every secret gitleaks finds, ours finds too.
      const theirsFound = CORPUS.filter((c, i) => hit.has(i) && c.expect === "secret").map((c) => c.kind);
      expect(theirsFound.filter((k) => ours.missed.includes(k))).toEqual([]);
      expect(ours.found).toBeGreaterThanOrEqual(theirs.found);
      expect(ours.false_positives.length).toBeLessThanOrEqual(theirs.false_positives.length);
    },
  );
});
