// The real projects the benches measure on (issue 42): a folder of checkouts, fetched once, at the commits
// named here and in the docs of each bench's area. The folder is $MCQ_BENCH_PROJECTS (default ~/mcq-bench-projects);
// each project is a plain clone in its own subfolder. A bench asks for the projects it needs and gets those
// present at the pinned commit; it says which it lacks (and how to get them) instead of failing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const BENCH_PROJECTS_DIR =
  process.env.MCQ_BENCH_PROJECTS ?? path.join(os.homedir(), "mcq-bench-projects");

/** name -> the GitHub repository and the commit measured. */
export const BENCH_PROJECTS = {
  flask: { repo: "pallets/flask", commit: "2ac89889f4cc330eabd50f295dcef02828522c69" },
  pylint: { repo: "pylint-dev/pylint", commit: "3a99b2d728d0c8ff5267e0c38ebad4f5ba228dac" },
  book: { repo: "rust-lang/book", commit: "917544888a55e4da7109bdba8c88c893c0da70f4" },
  electron: { repo: "electron/electron", commit: "96f3996d8d3ce6e2fcfb86326fc4b953b53936fb" },
  zustand: { repo: "pmndrs/zustand", commit: "f094eebe9bd3b4b0d77b997f69ab1d273f69a877" },
  cobra: { repo: "spf13/cobra", commit: "adbc8813901bba65827259daa8e22ff94ec1f30e" },
  log: { repo: "rust-lang/log", commit: "037d7a58f6ad184abb3afc4db81d37c43a5696ec" },
  rake: { repo: "ruby/rake", commit: "474500ab2eec41ef28068e18e30f84fa412a098f" },
  // ESLint 10, flat config, a pnpm workspace; its node_modules installed once in the checkout with
  // `npx pnpm@10 install --ignore-scripts --config.manage-package-manager-versions=false` (it names pnpm 11,
  // which needs Node 22; pnpm 10 installs its lockfile as it is).
  "vue-core": {
    repo: "vuejs/core",
    commit: "e2bede96134f757aad5c5b33ac9be055022dbfc8",
    install: "npx pnpm@10 install --ignore-scripts --config.manage-package-manager-versions=false",
  },
};

const headOf = (dir) =>
  spawnSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" }).stdout?.trim() ?? "";

/**
 * The checkouts of `names` that are present at their pinned commit, as { name: dir }. Each one missing or
 * at another commit is reported on stderr with the commands that fetch it; the bench measures the rest.
 */
export function benchProjects(names) {
  const found = {};
  for (const name of names) {
    const spec = BENCH_PROJECTS[name];
    if (!spec) throw new Error(`no bench project named ${name}`);
    const dir = path.join(BENCH_PROJECTS_DIR, name);
    const head = fs.existsSync(path.join(dir, ".git")) ? headOf(dir) : "";
    if (head === spec.commit) found[name] = dir;
    else
      console.error(
        `bench: lacks ${name} at ${spec.commit.slice(0, 12)}${head ? ` (${dir} is at ${head.slice(0, 12)})` : ""}: ` +
          `git clone https://github.com/${spec.repo} ${dir} && git -C ${dir} checkout ${spec.commit}` +
          (spec.install ? ` && (cd ${dir} && ${spec.install})` : ""),
      );
  }
  return found;
}

/** The load average, printed with every row of a bench on real projects. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
