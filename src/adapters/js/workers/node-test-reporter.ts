/**
 * A node:test reporter (`node --test --test-reporter=<this file>`): one JSON line per finished test with its
 * file, its full name (the describe blocks it is in), and a failure's whole message, newlines kept (the JUnit
 * reporter drops the file and squeezes messages onto one line). Runs inside the project's test process;
 * it writes only to the destination the server chose (a temp file).
 */

interface TestEventData {
  name: string;
  nesting: number;
  file?: string;
  line?: number;
  skip?: boolean | string;
  todo?: boolean | string;
  details?: { type?: string; error?: { message?: string; cause?: unknown; failureType?: string } };
}

interface TestEvent {
  type: string;
  data: TestEventData;
}

function messageOf(error: { message?: string; cause?: unknown } | undefined): {
  message: string;
  stack?: string;
} {
  const cause = error?.cause;
  if (cause instanceof Error) return { message: cause.message, stack: cause.stack };
  if (cause !== undefined && cause !== null && typeof cause === "object" && "message" in cause)
    return { message: String((cause as { message: unknown }).message) };
  return { message: cause !== undefined ? String(cause) : (error?.message ?? "") };
}

export default async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // The names of the tests each file is inside, by nesting level (events of one file come in order).
  const open = new Map<string, string[]>();
  for await (const event of source) {
    const d = event.data;
    const key = d?.file ?? "";
    if (event.type === "test:start") {
      const stack = (open.get(key) ?? []).slice(0, d.nesting);
      stack[d.nesting] = d.name;
      open.set(key, stack);
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const parents = (open.get(key) ?? []).slice(0, d.nesting);
    const suite = d.details?.type === "suite";
    const failed = event.type === "test:fail";
    yield `${JSON.stringify({
      status: failed
        ? "failed"
        : d.skip !== undefined && d.skip !== false
          ? "skipped"
          : d.todo !== undefined && d.todo !== false
            ? "todo"
            : "passed",
      suite,
      names: [...parents, d.name],
      file: d.file,
      line: d.line,
      ...(failed ? { failure_type: d.details?.error?.failureType, ...messageOf(d.details?.error) } : {}),
    })}\n`;
  }
}
