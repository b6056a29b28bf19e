/** Failed and erroring tests from pytest's JUnit XML (xunit1 family): node id, file, line, message. */
import path from "node:path";
import { xmlParser } from "../xml-parser.js";

export interface TestFailure {
  /** pytest's node id, e.g. `tests/test_calc.py::TestDivide::test_float`. */
  node_id: string;
  /** "failed" for a failing test, "error" for an error in setup/teardown or collection. */
  kind: "failed" | "error";
  /** Absolute path of the test file. */
  file: string;
  /** Where it failed in the test file (the crash line), else the test's first line. */
  line: number;
  /** The assertion or exception message. */
  message: string;
}

interface JunitProblem {
  message?: string;
  "#text"?: string;
}

interface JunitCase {
  classname?: string;
  name?: string;
  file?: string;
  line?: string;
  failure?: JunitProblem | JunitProblem[] | string;
  error?: JunitProblem | JunitProblem[] | string;
}

const MAX_MESSAGE_CHARS = 2000;

function first(p: JunitCase["failure"]): JunitProblem | undefined {
  if (p === undefined) return undefined;
  const one = Array.isArray(p) ? p[0] : p;
  return typeof one === "string" ? { "#text": one } : one;
}

/** `tests.test_calc.TestDivide` minus the module path of `tests/test_calc.py` → `["TestDivide"]`. */
function classPartsOf(classname: string, file: string): string[] {
  const module = file.replace(/\.py$/, "").split(/[\\/]/).join(".");
  if (classname === module) return [];
  if (classname.startsWith(module + ".")) return classname.slice(module.length + 1).split(".");
  return [];
}

/**
 * The line of the last traceback entry in the test file: `tests/test_x.py:23: AssertionError` when it
 * failed there, `tests/test_x.py:13: ` (nothing after the colon) when it called into code that failed
 * elsewhere, `tests/test_x.py:1: in <module>` in a collection traceback. Location lines start at
 * column 0; source and `E` lines are indented.
 */
function crashLine(text: string, file: string, where: { rootdir: string; cwd: string }): number | undefined {
  // Traceback paths are relative to the directory pytest ran in; the report's to its rootdir.
  const absolute = path.resolve(where.rootdir, file);
  const lines = text.split(/\r?\n/).reverse();
  for (const l of lines) {
    const m = /^(\S.*?):(\d+):(?: .*)?$/.exec(l.trimEnd());
    if (!m) continue;
    const named = m[1] as string;
    if (
      named === file ||
      path.resolve(where.cwd, named) === absolute ||
      path.resolve(where.rootdir, named) === absolute
    )
      return Number(m[2]);
  }
  return undefined;
}

/** The last `E   SomeError: ...` line of a pytest traceback, without the `E` gutter. */
function lastExceptionLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/).filter((l) => /^E\s{2,}\S/.test(l));
  return lines.at(-1)?.replace(/^E\s+/, "");
}

/**
 * Parses a JUnit XML report written with `-o junit_family=xunit1`. File paths in it are relative to
 * pytest's rootdir, which `rootdir` makes absolute.
 */
export function parseJunitFailures(xml: string, rootdir: string, cwd = rootdir): TestFailure[] {
  const parser = xmlParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    htmlEntities: true,
    parseAttributeValue: false,
    isArray: (name) => name === "testsuite" || name === "testcase",
  });
  const doc = parser.parse(xml) as {
    testsuites?: { testsuite?: { testcase?: JunitCase[] }[] };
    testsuite?: { testcase?: JunitCase[] }[];
  };
  const suites = doc.testsuites?.testsuite ?? doc.testsuite ?? [];
  const failures: TestFailure[] = [];
  for (const suite of suites) {
    for (const tc of suite.testcase ?? []) {
      for (const kind of ["failure", "error"] as const) {
        const problem = first(tc[kind]);
        if (!problem) continue;
        const file = tc.file ?? "";
        // A module that failed to import or collect has no class name; its node id is the file.
        const collection = !tc.classname;
        const classes = classPartsOf(tc.classname ?? "", file);
        const nodeId =
          collection && file ? file : [file, ...classes, tc.name ?? ""].filter(Boolean).join("::");
        const defLine = tc.line !== undefined ? Number(tc.line) + 1 : 0; // pytest writes it 0-based
        const text = problem["#text"] ?? "";
        let message = (problem.message ?? text.split("\n").at(-1) ?? "").trim();
        // pytest's message for collection errors is just "collection failure": add the exception line.
        const raised = lastExceptionLine(text);
        if (collection && raised && !message.includes(raised))
          message = message ? `${message}: ${raised}` : raised;
        failures.push({
          node_id: nodeId,
          kind: kind === "failure" ? "failed" : "error",
          file: file ? path.resolve(rootdir, file) : "",
          line: crashLine(text, file, { rootdir, cwd }) ?? defLine,
          message: message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message,
        });
      }
    }
  }
  return failures;
}
