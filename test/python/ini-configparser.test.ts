/**
 * The INI reader (src/adapters/python/ini.ts) against python3's own configparser (RawConfigParser, as
 * mypy, flake8 and coverage use it): every section of each sample reads the same, continuation lines,
 * blank lines inside a value, comments, `[DEFAULT]` and lower-cased option names included. The samples
 * are shaped like real ones (flake8's setup.cfg, black's .flake8, a mypy.ini) plus the corner cases.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { iniSection } from "../../src/adapters/python/ini.js";
import { missing, tempDir } from "../helpers/tools.js";

const SAMPLES: Record<string, string> = {
  "setup.cfg": `[metadata]
name = flake8
version = attr: flake8.__version__
classifiers =
    Development Status :: 5 - Production/Stable
    Framework :: Flake8

[options]
packages = find:
install_requires =
    mccabe>=0.7.0,<0.8.0
    pycodestyle>=2.14.0,<2.15.0
package_dir =
    =src

[options.packages.find]
where = src

[options.entry_points]
flake8.extension =
    F = flake8.plugins.pyflakes:FlakesChecker
    E = flake8.plugins.pycodestyle:pycodestyle_logical

[coverage:run]
source =
    flake8
    tests
plugins = covdefaults
`,
  ".flake8": `[flake8]
ignore = E203, E266, E501, E701, E704, W503, B907
# line length is intentionally set to 80 here
max-line-length = 80
max-complexity = 18
select = B,E,F,W,T4,B9
extend-ignore =
    E203,  # black
    W503
per-file-ignores =
    tests/*: S101
    __init__.py: F401 ; unused
`,
  "mypy.ini": `; top comment
[DEFAULT]
python_version = 3.12

[mypy] # the checker
Files =
    src,

    tests
# between
  ; indented comment
    more
strict: True
plugins = pydantic.mypy ; inline is kept
empty =

[mypy-pkg.*]
ignore_errors = True
  indented_key = not a key: deeper than nothing before it

[run]
omit = */[a-z]*
source = pkg
`,
  "indent.cfg": `[tool:pytest]
  addopts = -ra
  testpaths = tests
      more_tests
  xfail_strict = true
[ spaced ]
a = 1
`,
};

/** What configparser reads: every section with its items (the defaults included, as items() gives them). */
function configparser(dir: string, file: string): Record<string, Record<string, string>> {
  const script = `import configparser, json, sys
c = configparser.RawConfigParser()
c.read(sys.argv[1], encoding="utf-8")
print(json.dumps({s: dict(c.items(s)) for s in c.sections()}))`;
  const out = spawnSync("python3", ["-c", script, path.join(dir, file)], { encoding: "utf8" });
  expect(out.stderr).toBe("");
  return JSON.parse(out.stdout) as Record<string, Record<string, string>>;
}

describe.skipIf(missing("python3"))("iniSection reads as python3's configparser does", () => {
  const dir = tempDir("mcq-ini-");
  for (const [file, text] of Object.entries(SAMPLES))
    it(file, () => {
      fs.writeFileSync(path.join(dir, file), text);
      const truth = configparser(dir, file);
      expect(Object.keys(truth).length).toBeGreaterThan(0);
      for (const [section, items] of Object.entries(truth)) expect(iniSection(text, section)).toEqual(items);
      expect(iniSection(text, "absent")).toBeUndefined();
    });

  it("keeps a value's lines, so flake8's continued lists split as flake8 splits them", () => {
    const flake8 = iniSection(SAMPLES[".flake8"] as string, "flake8");
    expect(flake8?.["extend-ignore"]).toBe("\nE203,  # black\nW503");
    expect(iniSection(SAMPLES["setup.cfg"] as string, "options")?.package_dir).toBe("\n=src");
  });
});
