/**
 * The shipped bundle's JSON snapshot (written by `npm run build`, read at start instead of the YAML): it
 * holds exactly what parsing the sources gives, follows the package when it moves, and is ignored when
 * a source changed after it was written or when it is a link.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY_DIR, parseShippedSources } from "../../src/policy/compile.js";
import { loadShippedSnapshot, saveShippedSnapshot } from "../../src/policy/shipped-snapshot.js";
import type { BundleProblem } from "../../src/policy/source.js";
import { REPO_ROOT } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

async function parsed(dir: string) {
  const problems: BundleProblem[] = [];
  const sources = await parseShippedSources(dir, problems);
  expect(problems).toEqual([]);
  return sources;
}

describe("the shipped policy snapshot", () => {
  it("the build's dist/policy/shipped.json holds what the YAML and skills parse to", async () => {
    const snapshot = loadShippedSnapshot(
      DEFAULT_POLICY_DIR,
      path.join(REPO_ROOT, "dist/policy/shipped.json"),
    );
    expect(snapshot).toBeDefined();
    const fromYaml = await parsed(DEFAULT_POLICY_DIR);
    expect(snapshot).toEqual(fromYaml);
    expect(snapshot?.data.policies.length).toBeGreaterThan(0);
    expect(snapshot?.data.skills.length).toBeGreaterThan(0);
  });

  it("follows the package to another folder, and is not used once a source changed or when it is a link", async () => {
    const root = tempDir("mcq-policy-snapshot-");
    try {
      const before = path.join(root, "a");
      fs.mkdirSync(before);
      fs.cpSync(DEFAULT_POLICY_DIR, path.join(before, "policy"), { recursive: true });
      saveShippedSnapshot(
        path.join(before, "policy"),
        await parsed(path.join(before, "policy")),
        path.join(before, "shipped.json"),
      );
      expect(fs.readFileSync(path.join(before, "shipped.json"), "utf8")).not.toContain(before);

      const moved = path.join(root, "b");
      fs.renameSync(before, moved);
      const dir = path.join(moved, "policy");
      const file = path.join(moved, "shipped.json");
      const snapshot = loadShippedSnapshot(dir, file);
      expect(snapshot).toEqual(await parsed(dir));
      expect(snapshot?.data.policies[0]?.source?.file).toBe(path.join(dir, "policies.yaml"));

      const link = path.join(moved, "link.json");
      fs.symlinkSync(file, link);
      expect(loadShippedSnapshot(dir, link)).toBeUndefined();

      const policies = path.join(dir, "policies.yaml");
      const original = fs.readFileSync(policies, "utf8");
      fs.appendFileSync(policies, "\n# edited after the build\n");
      expect(loadShippedSnapshot(dir, file)).toBeUndefined();
      fs.writeFileSync(policies, original);
      expect(loadShippedSnapshot(dir, file)).toBeDefined();
      fs.writeFileSync(path.join(dir, "skills", "new-skill.md"), "---\n---\n");
      expect(loadShippedSnapshot(dir, file)).toBeUndefined();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
