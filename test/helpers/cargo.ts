/** cargo's JSON messages (`--message-format=json`), as tests compare them with ours. */

interface CargoMessage {
  reason: string;
  message?: {
    code?: { code: string };
    spans: { file_name: string; line_start: number; is_primary: boolean }[];
    rendered?: string;
  };
}

/**
 * Each compiler message with a code: the code, its primary span's file (as cargo names it) and line. A
 * message repeated word for word by another target of the same file (the library and its tests) is counted
 * once, as cargo's own report counts it ("(3 duplicates)").
 */
export function cargoMessagePlaces(stdout: string): { code: string; file: string; line: number }[] {
  const seen = new Set<string>();
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as CargoMessage)
    .filter((m) => m.reason === "compiler-message" && m.message?.code)
    .filter((m) => {
      const same = m.message?.rendered ?? JSON.stringify(m.message);
      if (seen.has(same)) return false;
      seen.add(same);
      return true;
    })
    .map((m) => {
      const span = m.message?.spans.find((s) => s.is_primary);
      return { code: m.message?.code?.code ?? "", file: span?.file_name ?? "", line: span?.line_start ?? 0 };
    });
}
