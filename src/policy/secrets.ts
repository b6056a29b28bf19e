/**
 * Secrets in text, found by secretlint's recommended rule preset (@secretlint/secretlint-rule-preset-recommend:
 * AWS, GCP, Azure, GitHub, Slack, npm, OpenAI, Anthropic, private keys, Basic auth and database URLs with
 * credentials, …) run in-process, plus one rule of ours for what the preset leaves out: a literal assigned
 * to a name that says password, secret or token. With the usual allowlist: placeholders (`<your-key>`,
 * `xxxx`, `changeme`, `${VAR}`, the AWS documentation keys) and values read from the environment. The
 * same detection serves policy_check_edit, both hooks and security_scan's `secrets` scanner.
 */
import type { SecretLintCoreResult } from "@secretlint/types";
import { re2 } from "./cel.js";
import { ourSecrets } from "./secret-rules.js";

export interface SecretFinding {
  /** The rule that found it (`@secretlint/secretlint-rule-aws`, `mcp-code-quality/secret-assignment`). */
  rule: string;
  /** The rule's message id (`AWSSecretAccessKey`, `IncomingWebhook`, …). */
  kind: string;
  message: string;
  /** 1-based line and column of its start in the text. */
  line: number;
  column: number;
}

/** Values that are not secrets: placeholders and templates (the whole value), documentation examples (a word in it). */
const PLACEHOLDER = String.raw`(?i)^(?:<[^>]*>|\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|\{\{[^}]*\}\}|%\([^)]*\)s|x{4,}|\*{4,}|\.{4,}|changeme|change[-_]me|placeholder|dummy|sample|redacted|your[-_].*|my[-_](?:password|secret|token).*|replace[-_]?me|todo|fixme|notasecret|not[-_]a[-_]secret|fake|test(?:ing)?|none|null|undefined|password|secret|token)$`;
const EXAMPLE_WORD = String.raw`(?i)(example|changeme|placeholder|dummy|redacted|your[-_]?(password|secret|token|key)|x{8,}|(^|[-_.])(test|fake|mock|stub|sample)([-_.]|$))`;
/** A line that reads its value from the environment or a secret store, not from a literal. */
const FROM_ENVIRONMENT = String.raw`(?i)(os\.environ|os\.getenv|getenv\(|process\.env|ENV\[|ENV\.fetch|System\.getenv|env::var|Environment\.GetEnvironmentVariable|secrets\.|vault\.|keyring\.)`;

let loaded: Promise<(text: string) => Promise<SecretLintCoreResult>> | undefined;

/** secretlint's core and the preset, loaded on first use (a hook answering a Bash command never needs them). */
function linter(): Promise<(text: string) => Promise<SecretLintCoreResult>> {
  loaded ??= (async () => {
    const [{ lintSource }, { creator: preset }] = await Promise.all([
      import("@secretlint/core"),
      import("@secretlint/secretlint-rule-preset-recommend"),
    ]);
    const config = {
      rules: [
        {
          id: "@secretlint/secretlint-rule-preset-recommend",
          rule: preset,
          // The access key id alone is a secret too (off by default in the preset).
          rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
        },
      ],
    };
    return (text: string) =>
      lintSource({
        source: { filePath: "/input.txt", content: text, contentType: "text", ext: ".txt" },
        options: { config: config as never, maskSecrets: true, noPhysicFilePath: true },
      });
  })();
  return loaded;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Every secret in `text` that is not a placeholder or an environment lookup. `file`, the text's path, says
 * how to read it (an unquoted value is a literal in `.env` or YAML, code in Python or Go).
 */
export async function findSecrets(text: string, file?: string): Promise<SecretFinding[]> {
  if (text.trim() === "") return [];
  const result = await (await linter())(text);
  const ours = ourSecrets(text, file);
  // Nothing found (the usual case): the filters below are not even compiled.
  if (result.messages.length === 0 && ours.length === 0) return [];
  const starts = lineStarts(text);
  const placeholder = re2(PLACEHOLDER);
  const example = re2(EXAMPLE_WORD);
  const fromEnv = re2(FROM_ENVIRONMENT);
  const found: (SecretFinding & { generic: boolean })[] = [];
  const consider = (
    rule: string,
    kind: string,
    message: string,
    from: number,
    rawValue: string,
    generic: boolean,
  ) => {
    // A rule's range may start at the name it was assigned to (secretlint's AWS rule): the value is its last token.
    const value = rawValue
      .replace(/^["']?[A-Za-z_][A-Za-z0-9_.-]*["']?\s*(?::=|=>|[:=])(?!\/\/)\s*/, "")
      .replace(/^["']|["']$/g, "");
    let lineIndex = 0;
    while (lineIndex + 1 < starts.length && (starts[lineIndex + 1] as number) <= from) lineIndex++;
    const lineText = text.slice(starts[lineIndex], starts[lineIndex + 1] ?? text.length);
    if (
      placeholder.test(value) ||
      // Documentation examples (AWS's AKIAIOSFODNN7EXAMPLE, "your-token", ...).
      example.test(value) ||
      fromEnv.test(lineText)
    )
      return;
    found.push({
      rule,
      kind,
      message,
      line: lineIndex + 1,
      column: from - (starts[lineIndex] as number) + 1,
      generic,
    });
  };
  for (const m of result.messages)
    consider(m.ruleId, m.messageId, m.message, m.range[0], text.slice(m.range[0], m.range[1]), false);
  for (const s of ours)
    consider(
      s.rule,
      s.kind,
      s.generic ? "found a literal credential assigned to a name that says so" : `found a ${s.kind}`,
      s.index,
      s.value,
      s.generic,
    );
  // The credential-name rule only adds what the specific rules missed on a line; one finding per place.
  const specific = new Set(found.filter((f) => !f.generic).map((f) => f.line));
  const seen = new Set<string>();
  return found
    .filter((f) => !f.generic || !specific.has(f.line))
    .filter((f) => {
      const key = `${f.line}:${f.column}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map(({ generic: _generic, ...f }) => f);
}

/** The secrets in lines an edit adds, named `rule:kind` (what the edit context's `secrets` lists). */
export async function secretsIn(lines: readonly string[], file?: string): Promise<string[]> {
  if (lines.length === 0) return [];
  const found = await findSecrets(lines.join("\n"), file);
  return [...new Set(found.map((f) => `${f.rule.replace(/^@secretlint\/secretlint-rule-/, "")}:${f.kind}`))];
}
