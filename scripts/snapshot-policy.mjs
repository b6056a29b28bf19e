// Part of `npm run build`: saves the shipped policy bundle's parsed sources as dist/policy/shipped.json,
// which a server reads at start instead of parsing the YAML (src/policy/shipped-snapshot.ts). An invalid
// shipped bundle fails the build here, with file, line and reason.
import { writeShippedSnapshot } from "../dist/policy/compile.js";

try {
  await writeShippedSnapshot();
} catch (err) {
  process.stderr.write(`policy snapshot: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
