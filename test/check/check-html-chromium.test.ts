/**
 * `check --html` opened in a real browser, Debian's headless Chromium: a report of 20,000 ruff findings (the
 * count the ruff CLI gives) renders, its script runs to the end (the page marks itself rendered and shows the
 * first page of 100 findings of 20,000: the page holds them without freezing: Chromium prints the DOM only once
 * the page has loaded and its script has run), and its screenshot shows the findings with their code (the
 * highlighted line of each snippet is painted). The page loads nothing from the network.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../helpers/check.js";
import { IN_CI, missing, tempDir, TOOLS_VENV_BIN } from "../helpers/tools.js";

const FILES = 20;
const PER_FILE = 1000;
/** pre.code span.hit's background in the page's CSS: the finding's own line in its snippet. */
const HIT = [0xff, 0xf8, 0xc5];

const chromium = ["chromium", "chromium-browser"].find((c) => !missing(c));

function inChromium(args: string[]) {
  return spawnSync(
    chromium!,
    // As root (CI) Chromium's own sandbox needs a user namespace setup it does not get here.
    ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars", ...args],
    { encoding: "utf8", timeout: 180_000, maxBuffer: 256 * 1024 * 1024 },
  );
}

describe("check --html in headless Chromium", () => {
  const skip = (!chromium && !IN_CI) || missing("ruff", [TOOLS_VENV_BIN]);
  let dir: string;
  let report: string;
  beforeAll(async () => {
    if (skip) return;
    dir = tempDir("mcq-html-");
    fs.writeFileSync(path.join(dir, "pyproject.toml"), '[tool.ruff.lint]\nselect = ["F401"]\n');
    for (let f = 0; f < FILES; f++)
      fs.writeFileSync(
        path.join(dir, `m${f}.py`),
        Array.from({ length: PER_FILE }, (_, i) => `import os as a${i}\n`).join(""),
      );
    report = path.join(dir, "report.html");
    const r = await runCheck([".", "--only", "ruff", "--html", report], { cwd: dir });
    expect(r.status, r.stderr).toBe(1);
  }, 300_000);

  it.skipIf(skip)("is found (Chromium is installed where CI runs)", () => {
    expect(chromium).toBeDefined();
  });

  it.skipIf(skip)("renders 20,000 findings: the script runs to the end and shows the first page", () => {
    const html = fs.readFileSync(report, "utf8");
    // Self-contained: no external script, style or image.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']https?:/i);
    const r = inChromium(["--dump-dom", `file://${report}`]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/<html[^>]* data-rendered="[\d.]+"/);
    expect(r.stdout).toContain(`findings 1–100 of ${FILES * PER_FILE}`);
    expect(r.stdout.match(/class="finding"/g)).toHaveLength(100);
    expect(r.stdout).toContain("F401 (ruff)");
  });

  it.skipIf(skip)("its screenshot shows the findings with their code", () => {
    const shot = path.join(dir, "shot.png");
    const r = inChromium([`--screenshot=${shot}`, "--window-size=1280,6000", `file://${report}`]);
    expect(r.status, r.stderr).toBe(0);
    const png = PNG.sync.read(fs.readFileSync(shot));
    let hits = 0;
    for (let i = 0; i < png.data.length; i += 4)
      if (png.data[i] === HIT[0] && png.data[i + 1] === HIT[1] && png.data[i + 2] === HIT[2]) hits++;
    // Each shown finding's line is highlighted: many rows of highlighted pixels, not a stray few.
    expect(hits).toBeGreaterThan(10 * 1000);
  });
});
