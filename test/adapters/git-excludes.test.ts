/** core.excludesFile as read from a global git config's text (git-excludes.ts), against git's own reading. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { excludesFileOf } from "../../src/adapters/git-excludes.js";
import { tempDir } from "../helpers/tools.js";

const CONFIGS = [
  "[core]\n\texcludesFile = /srv/ignore\n",
  "[user]\n\tname = x\n[core]\n\tautocrlf = false\n\texcludesfile = ~/.gitignore_global\n",
  '[Core]\n    ExcludesFile = "/a b/ignore" ; a comment\n',
  "[core]\n\texcludesFile = /first\n[core]\n\texcludesFile = /second\n",
  "[user]\n\texcludesFile = /not-core\n",
];

describe("excludesFileOf", () => {
  it.each(CONFIGS)("reads %j as git config --get does", (text) => {
    const home = tempDir("mcq-gitcfg-");
    fs.writeFileSync(path.join(home, ".gitconfig"), text);
    const r = spawnSync("git", ["config", "--global", "--path", "--get", "core.excludesFile"], {
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") },
      encoding: "utf8",
    });
    const git = r.status === 0 ? r.stdout.replace(/\n$/, "") : undefined;
    expect(excludesFileOf(text, home)).toBe(git);
  });
});
