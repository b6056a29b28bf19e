/**
 * Secrets in text, found by secretlint's recommended rule preset (@secretlint/secretlint-rule-preset-recommend:
 * AWS, GCP, Azure, GitHub, Slack, npm, OpenAI, Anthropic, private keys, Basic auth and database URLs with
 * credentials, …) run in-process, plus one rule of ours for what the preset leaves out: a literal assigned
 * to a name that says password, secret or token. With the usual allowlist: placeholders (`<your-key>`,
 * `xxxx`, `changeme`, `${VAR}`, the AWS documentation keys) and values read from the environment. The
 * same detection serves policy_check_edit, both hooks and security_scan's `secrets` scanner.
 */
import type { SecretLintCoreResult, SecretLintRuleCreator } from "@secretlint/types";
import { re2 } from "./cel.js";

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

const ASSIGNMENT_RULE = "mcp-code-quality/secret-assignment";
/** NAME = "literal" where the name says it is a credential (RE2: linear time whatever the line). */
/**
 * Every match of ASSIGNMENT holds one of these (its name alternatives), so a text with none skips compiling
 * it (a good part of a Write hook's CPU). Compared after lower-casing and folding "ſ" to "s", as RE2's (?i)
 * folds (toLowerCase already maps the Kelvin sign to "k").
 */
const ASSIGNMENT_WORDS = ["passw", "pwd", "secret", "token", "key", "credential"];
const mayHoldAssignment = (text: string) => {
  const folded = text.toLowerCase().replace(/\u017f/g, "s");
  return ASSIGNMENT_WORDS.some((w) => folded.includes(w));
};
const ASSIGNMENT = String.raw`(?i)(?:^|[^A-Za-z0-9])([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key)[A-Za-z0-9_]*)["']?\s*(?::=|=>|[:=])\s*[bru]?["']([^"'\s]{8,256})["']`;
/** Values that are not secrets: placeholders and templates (the whole value), documentation examples (a word in it). */
const PLACEHOLDER = String.raw`(?i)^(?:<[^>]*>|\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|\{\{[^}]*\}\}|%\([^)]*\)s|x{4,}|\*{4,}|\.{4,}|changeme|change[-_]me|placeholder|dummy|sample|redacted|your[-_].*|my[-_](?:password|secret|token).*|replace[-_]?me|todo|fixme|notasecret|not[-_]a[-_]secret|fake|test(?:ing)?|none|null|undefined|password|secret|token)$`;
const EXAMPLE_WORD = String.raw`(?i)(example|changeme|placeholder|dummy|redacted|your[-_]?(password|secret|token|key))`;
/** A line that reads its value from the environment or a secret store, not from a literal. */
const FROM_ENVIRONMENT = String.raw`(?i)(os\.environ|os\.getenv|getenv\(|process\.env|ENV\[|ENV\.fetch|System\.getenv|env::var|Environment\.GetEnvironmentVariable|secrets\.|vault\.|keyring\.)`;

const assignmentRule: SecretLintRuleCreator = {
  messages: {
    SecretAssignment: { en: (p: { NAME: string }) => `found a literal credential assigned to ${p.NAME}` },
  },
  meta: {
    id: ASSIGNMENT_RULE,
    recommended: true,
    type: "scanner",
    supportedContentTypes: ["text"],
    docs: { url: "https://github.com/secretlint/secretlint" },
  },
  create(context) {
    const t = context.createTranslator(assignmentRule.messages);
    return {
      file(source) {
        if (!mayHoldAssignment(source.content)) return;
        const re = re2(ASSIGNMENT);
        let offset = 0;
        for (const line of source.content.split("\n")) {
          // test() runs on RE2's DFA; the capture groups are only asked of a line that matches.
          const m =
            line.length <= 4096 && re.test(line)
              ? (re.exec(line) as (string[] & { index: number }) | null)
              : null;
          if (m) {
            const value = m[2] as string;
            const at = offset + line.indexOf(value, m.index);
            context.report({
              message: t("SecretAssignment", { NAME: m[1] as string }),
              range: [at, at + value.length],
            });
          }
          offset += line.length + 1;
        }
      },
    };
  },
};

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
        { id: ASSIGNMENT_RULE, rule: assignmentRule },
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

/** Every secret in `text` that is not a placeholder or an environment lookup. */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
  if (text.trim() === "") return [];
  const result = await (await linter())(text);
  // Nothing found (the usual case): the filters below are not even compiled.
  if (result.messages.length === 0) return [];
  const starts = lineStarts(text);
  const placeholder = re2(PLACEHOLDER);
  const example = re2(EXAMPLE_WORD);
  const fromEnv = re2(FROM_ENVIRONMENT);
  const out: SecretFinding[] = [];
  for (const m of result.messages) {
    const [from, to] = m.range;
    // A rule's range may start at the name it was assigned to (secretlint's AWS rule): the value is its last token.
    const value = text
      .slice(from, to)
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
      continue;
    out.push({
      rule: m.ruleId,
      kind: m.messageId,
      message: m.message,
      line: lineIndex + 1,
      column: from - (starts[lineIndex] as number) + 1,
    });
  }
  // The credential-name rule only adds what the specific rules missed on a line.
  const specific = new Set(out.filter((f) => f.rule !== ASSIGNMENT_RULE).map((f) => f.line));
  return out.filter((f) => f.rule !== ASSIGNMENT_RULE || !specific.has(f.line));
}

/** The secrets in lines an edit adds, named `rule:kind` (what the edit context's `secrets` lists). */
export async function secretsIn(lines: readonly string[]): Promise<string[]> {
  if (lines.length === 0) return [];
  const found = await findSecrets(lines.join("\n"));
  return [...new Set(found.map((f) => `${f.rule.replace(/^@secretlint\/secretlint-rule-/, "")}:${f.kind}`))];
}
