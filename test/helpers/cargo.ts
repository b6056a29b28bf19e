/** cargo's JSON messages (`--message-format=json`), as tests compare them with ours. */

interface CargoMessage {
  reason: string;
  message?: {
    code?: { code: string };
    spans: { file_name: string; line_start: number; is_primary: boolean }[];
  };
}

/** Each compiler message with a code: the code, its primary span's file (as cargo names it) and line. */
export function cargoMessagePlaces(stdout: string): { code: string; file: string; line: number }[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as CargoMessage)
    .filter((m) => m.reason === "compiler-message" && m.message?.code)
    .map((m) => {
      const span = m.message?.spans.find((s) => s.is_primary);
      return { code: m.message?.code?.code ?? "", file: span?.file_name ?? "", line: span?.line_start ?? 0 };
    });
}
