/**
 * Registers the `secrets` scanner with security_scan's scanner registry (security-scanners.ts) for every
 * language (`languages: "any"`): which scanners a call runs by default is tool-choice's decision (#26).
 */
import type { Finding } from "../../findings/model.js";
import { registerSecurityScanner, summaryOf } from "../security-scanners.js";
import { scanSecrets } from "./secrets-scanner.js";
import { VERSION } from "../../version.js";

registerSecurityScanner({
  name: "secrets",
  languages: "any",
  kind: "secrets",
  install: "built in (secretlint's recommended rules, in-process)",
  unavailable: () => undefined,
  async scan(_ctx, request) {
    const scan = await scanSecrets(request.target);
    const raw = new Map<Finding, unknown>(scan.findings.map((f) => [f, { rule: f.rule_id, line: f.line }]));
    return {
      findings: scan.findings,
      raw,
      summary: summaryOf(scan.findings),
      command: `secretlint (in-process, recommended preset) over ${scan.files_scanned} file(s)`,
      returncode: scan.findings.length ? 1 : 0,
      unscanned: [],
      notes: scan.notes,
      // Part of this server: secretlint's recommended rules as it bundles them.
      version: VERSION,
    };
  },
});
