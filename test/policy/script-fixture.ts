/**
 * The project the scripts corpus (corpus/scripts.jsonl) runs in: scripts, a Makefile (with an include, a
 * pattern rule, `$(MAKE)`), package.json scripts (pre/post, lifecycle in a sub-package), a justfile, an
 * interpreter script, an awk program, an expect script; harmful ones commit past the hook, force-push,
 * or empty a hook, and ordinary ones build, test and install. Also a binary, a file over the size cap, a
 * link out of the project and a chain of scripts deeper than the limit.
 */
import fs from "node:fs";
import path from "node:path";

export const SCRIPT_FILES: Record<string, string> = {
  "ship.sh": "#!/bin/sh\nset -e\ngit add -A\ngit commit --no-verify -m ship\n",
  "self.sh": '#!/bin/sh\n[ -n "$DONE" ] || DONE=1 sh self.sh\ngit commit -n -m self\n',
  "scripts/install.sh": "#!/bin/sh\nset -e\necho installing\nmkdir -p build\ncp -r src build/\n",
  "scripts/check.sh": "#!/usr/bin/env bash\ngit status --short\ngit diff --stat\n",
  "scripts/nested.sh": "#!/bin/sh\necho nested\n./ship.sh\n",
  "scripts/ci-local.sh": "#!/bin/sh\nmake test && npm test\n",
  "activate.sh": "export APP_ENV=dev\nexport PATH_EXTRA=/opt/app/bin\n",
  "notes.txt": "foo a\nbar b\n",
  "cmds.txt": "git commit -n -m x\n",
  "src/app.c": "int main(void) { return 0; }\n",
  "tools/commit.py":
    '#!/usr/bin/env python3\nimport subprocess\nsubprocess.run(["git", "commit", "--no-verify", "-m", "py"], check=True)\n',
  "tools/report.py": "#!/usr/bin/env python3\nimport sys\nprint(open('notes.txt').read())\nsys.exit(0)\n",
  "tools/stage.py":
    '#!/usr/bin/env python3\nimport subprocess, sys\nfor name in sys.argv[1:]:\n    subprocess.run(["git", "add", name], check=True)\n',
  "tools/run.py":
    "#!/usr/bin/env python3\nimport os, sys\n# runs git with the flags given\nos.system('git commit ' + ' '.join(sys.argv[1:]))\n",
  "tools/x.awk": 'BEGIN { system("git commit -n -m awk") }\n',
  "tools/ship.exp": "spawn git commit --no-verify -m exp\nexpect eof\n",
  "package.json": JSON.stringify({
    name: "p",
    private: true,
    scripts: {
      build: "tsc -p .",
      test: "vitest run",
      lint: "eslint .",
      ship: "git commit --no-verify -m ship",
      commit: "git commit",
      deploy: "sh ship.sh",
    },
  }),
  "sub/package.json": JSON.stringify({
    name: "sub",
    scripts: {
      pretest: "git commit -n -m pre",
      test: "echo ok",
      postinstall: "rm -f ../.git/hooks/pre-commit",
    },
  }),
  Makefile: [
    "CC ?= cc",
    "-include extra.mk",
    ".PHONY: build test clean ship release all",
    "build: src/app.o",
    "\t$(CC) -o app src/app.o",
    "%.o: %.c",
    "\t$(CC) -c $< -o $@",
    "test:",
    "\t@echo running tests",
    "\t$(CC) -fsyntax-only src/app.c",
    "\tgit diff --check",
    "clean:",
    "\trm -rf build app src/app.o",
    "ship:",
    '\tgit commit --no-verify -m "$(MSG)"',
    "release:",
    "\t$(MAKE) ship MSG=release",
    "all: build ship",
    "dist/%.tar:",
    "\tgit push --force origin HEAD",
    "",
  ].join("\n"),
  "extra.mk": "publish:\n\tgit push --force origin main\n",
  "build.mk": "$(eval $(call rule,x))\nx:\n\techo x\n",
  // `:=` assignments, and a default goal that is not the first rule.
  "sub/Makefile":
    ".DEFAULT_GOAL := docs\nGREETING := docs built\nhooks:\n\techo 'exit 0' > ../.git/hooks/pre-commit\ndocs:\n\techo $(GREETING)\n",
  justfile:
    "default:\n    echo hi\n\nship: test\n    git commit --no-verify -m just\n\nrelease: ship\n    echo released\n\ntest:\n    @echo test\n",
};

/** Writes the fixture into `dir`, with the special files (binary, too big, a link out, a deep chain). */
export function writeScriptFixture(dir: string, outside: string): void {
  for (const [f, text] of Object.entries(SCRIPT_FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text, { mode: /\.(sh|py)$/.test(f) ? 0o755 : 0o644 });
  }
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync("/bin/true", path.join(dir, "bin", "tool"));
  fs.chmodSync(path.join(dir, "bin", "tool"), 0o755);
  fs.writeFileSync(path.join(dir, "big.sh"), `${"echo ok\n".repeat(40_000)}git commit -n -m big\n`);
  fs.writeFileSync(path.join(outside, "outside.sh"), "git commit -n -m outside\n");
  fs.symlinkSync(path.join(outside, "outside.sh"), path.join(dir, "link-out.sh"));
  fs.mkdirSync(path.join(dir, "deep"), { recursive: true });
  for (let n = 1; n <= 10; n++)
    fs.writeFileSync(
      path.join(dir, "deep", `d${n}.sh`),
      n < 10 ? `sh deep/d${n + 1}.sh\n` : "git commit -n -m deep\n",
    );
}
