/**
 * Issue 10.5: a catastrophic-backtracking pattern in `ignore_patterns` (`^(a+)+$` against a long link)
 * froze the whole server for 104 s under --timeout 10. User patterns now run in a linear-time engine
 * (RE2JS): the call returns at once, other calls keep being answered, and patterns that only a
 * backtracking engine can run (backreferences, lookaround) are refused as invalid_input.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { tempDir } from "../helpers/tools.js";

// 2^48 paths for a backtracking engine: far beyond any timeout.
const EVIL_LINK = `${"a".repeat(48)}!`;

describe("user regular expressions cannot stall the server", () => {
  let dir: string;
  let server: Connected;

  beforeAll(async () => {
    dir = tempDir("mcq-redos-");
    fs.writeFileSync(path.join(dir, "doc.md"), `# Doc\n\n[evil](${EVIL_LINK})\n[fine](#doc)\n`);
    server = await connectStdio({ args: ["--allowed-paths", dir, "--timeout", "10"], cwd: dir });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("ignore_patterns ^(a+)+$ against a long link returns, and the server still answers", async () => {
    const r = await server.call("check_markdown_links", {
      path: ".",
      check_external: false,
      ignore_patterns: ["^(a+)+$", "^x"],
    });
    expect(r).toMatchObject({ success: true, total_links: 2, skipped_links: 0, broken_links: 1 });
    expect(r.broken).toEqual([
      { file: "doc.md", line: 3, lines: [3], column: 1, url: EVIL_LINK, error: "file not found" },
    ]);
    const status = await server.call("get_status", {});
    expect(status.success).toBe(true);
  }, 30_000);

  it("rewrite patterns run in the same engine", async () => {
    const r = await server.call("check_markdown_links", {
      path: ".",
      check_external: false,
      rewrite: [{ pattern: "^(a+)+$", replacement: "doc.md" }],
    });
    expect(r).toMatchObject({ success: true, total_links: 2, broken_links: 1 });
  }, 30_000);

  it("backreferences and lookaround are invalid_input with the reason", async () => {
    const back = await server.call("check_markdown_links", { path: ".", ignore_patterns: ["(a)\\1"] });
    expect(back).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(back.error).toMatch(
      /^ignore_patterns\[0\] is not a valid regular expression .*backreferences are not supported/,
    );
    const ahead = await server.call("check_markdown_links", { path: ".", ignore_patterns: ["ok", "a(?=b)"] });
    expect(ahead).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(ahead.error).toMatch(/^ignore_patterns\[1\] .*lookahead and lookbehind are not supported/);
    const rewrite = await server.call("check_markdown_links", {
      path: ".",
      rewrite: [{ pattern: "(?<=x)y", replacement: "z" }],
    });
    expect(rewrite).toMatchObject({ success: false, error_type: "invalid_input" });
    expect(rewrite.error).toMatch(/^rewrite\[0\]\.pattern /);
  });
});
