/**
 * Secret rules of ours, beside secretlint's preset: key formats it leaves out (GitLab, Stripe live keys,
 * OpenAI project keys, Google API keys, PyPI, age, JWTs, Azure storage keys, private key blocks whatever
 * their type or however they are quoted, credentials in URLs) and one generic rule for a value assigned
 * to a name that says password, secret, token, API key or credential: quoted or not (`.env`, YAML,
 * INI/TOML, compose lists), typed or not (`password: str = …`, `pub const API_TOKEN: &str = …`,
 * `export const API_TOKEN: string = …`, `var apiSecret string = …`); unquoted only where the file's syntax
 * makes an unquoted value a literal (not source code, where it is an expression). A generic value must look random
 * (its Shannon entropy), not like a word, a variable name, a reference or a placeholder. RE2 patterns:
 * linear time on any line. Pure.
 */
import { re2 } from "./cel.js";

export interface RawSecret {
  rule: string;
  kind: string;
  /** The value found, and where it starts in the text. */
  value: string;
  index: number;
  /** A credential-name match (the specific formats win on the same line). */
  generic: boolean;
}

export const FORMAT_RULE = "mcp-code-quality/secret-format";
export const ASSIGNMENT_RULE = "mcp-code-quality/secret-assignment";

/** Key formats: one capture group (the secret). Written from each provider's documented token shape. */
const FORMATS: { kind: string; pattern: string }[] = [
  { kind: "GitLabToken", pattern: String.raw`\b(gl(?:pat|dt|ptt|rt|cbt|oas|ft)-[A-Za-z0-9_-]{20,})` },
  { kind: "StripeLiveKey", pattern: String.raw`\b((?:sk|rk)_live_[A-Za-z0-9]{20,})` },
  {
    kind: "OpenAIKey",
    pattern: String.raw`\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,})`,
  },
  { kind: "GoogleAPIKey", pattern: String.raw`\b(AIza[0-9A-Za-z_-]{35})` },
  { kind: "PyPIToken", pattern: String.raw`\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,})` },
  { kind: "AgeSecretKey", pattern: String.raw`(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})` },
  {
    kind: "GitHubToken",
    pattern: String.raw`\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,})`,
  },
  { kind: "SlackToken", pattern: String.raw`\b(xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,})` },
  { kind: "AnthropicKey", pattern: String.raw`\b(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,})` },
  { kind: "NpmToken", pattern: String.raw`\b(npm_[A-Za-z0-9]{36})` },
  { kind: "SendGridKey", pattern: String.raw`\b(SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{40,})` },
  { kind: "ShopifyToken", pattern: String.raw`\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})` },
  { kind: "VaultToken", pattern: String.raw`\b(hv[sb]\.[A-Za-z0-9_-]{90,})` },
  { kind: "LinearKey", pattern: String.raw`\b(lin_api_[A-Za-z0-9]{40})` },
  { kind: "JWT", pattern: String.raw`\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})` },
  { kind: "AzureStorageKey", pattern: String.raw`AccountKey=([A-Za-z0-9+/]{80,}={0,2})` },
  {
    kind: "PrivateKey",
    pattern: String.raw`(-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|\s|[A-Za-z-]+: [^\n]*)*[A-Za-z0-9+/]{40,})`,
  },
  {
    // scheme://user:password@host, a password that is not a placeholder or an example host's
    kind: "URLCredential",
    pattern: String.raw`\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'"]{1,64}:([^\s:/@'"$<{]{6,128})@([A-Za-z0-9.-]+)`,
  },
  { kind: "URLToken", pattern: String.raw`\bhttps?://([0-9a-f]{32})@[A-Za-z0-9.-]+` },
];

/** Names that say a value is a credential. */
const NAME = String.raw`[A-Za-z0-9_.-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key)[A-Za-z0-9_]*`;
/** A type between a name and its value: `: str`, `: &str`, `: string`, `: Option<String>`, Go's ` string`. */
const TYPE = String.raw`(?:\s*:\s*&?'?[A-Za-z_][\w<>\[\].]*(?:\s*\|\s*[\w.]+)*|\s+(?:string|String|str|\[\]byte))?`;
/** NAME (typed or not) = "quoted value" (also `:`, `:=`, `=>`, a JSON key). */
const QUOTED = String.raw`(?i)(?:^|[^A-Za-z0-9])(${NAME})["']?${TYPE}\s*(?::=|=>|[:=])\s*[bru]?["'\x60]([^"'\x60\s]{8,256})["'\x60]`;
/** NAME=value / NAME: value unquoted, the whole line (.env, YAML, INI, a compose list item). */
const UNQUOTED = String.raw`(?i)^\s*(?:export\s+|-\s+)?(${NAME})\s*(?:=|:)\s*([^\s"'\x60#]{8,256})\s*(?:#.*)?$`;

/** Bits of entropy per character (Shannon), of a value. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Whether a file's syntax makes an unquoted value a literal: `.env`, INI/cfg/properties, YAML, shell, plain
 * text, files with no extension (Makefile, credentials). In source code a bare value is an expression
 * (`secret_key = self.secret_keys[-1]`, Go's `token = tokens[len(tokens)-1]`), and TOML and JSON quote
 * their strings. An unknown path (undefined) keeps the unquoted rule.
 */
export function unquotedValuesAreLiterals(file: string | undefined): boolean {
  if (file === undefined) return true;
  const base = file.split("/").pop()?.toLowerCase() ?? "";
  if (/^\.env(\..*)?$|\.env$|^\.envrc$/.test(base)) return true;
  const dot = base.lastIndexOf(".");
  // No extension (a dotfile's name is not one): Makefile, credentials, .npmrc, .pypirc, .netrc, .bashrc.
  if (dot <= 0) return true;
  return /^(ini|cfg|conf|cnf|properties|prefs|ya?ml|sh|bash|zsh|ksh|txt|npmrc|pypirc|netrc)$/.test(
    base.slice(dot + 1),
  );
}

/**
 * Every match of our rules in a text (before the placeholder and environment filters); `file` (its path)
 * says whether unquoted values are literals there.
 */
export function ourSecrets(text: string, file?: string): RawSecret[] {
  const out: RawSecret[] = [];
  for (const f of FORMATS) {
    const re = re2(f.pattern);
    let from = 0;
    // A text has few secrets; each test() runs on RE2's DFA, exec() only where one matched.
    while (from < text.length) {
      const rest = text.slice(from);
      if (!re.test(rest)) break;
      const m = re.exec(rest) as (string[] & { index: number }) | null;
      if (!m) break;
      const value = m[1] as string;
      const at = from + m.index + (m[0] as string).indexOf(value);
      if (f.kind !== "URLCredential" || !exampleHost(m[2] as string))
        out.push({ rule: FORMAT_RULE, kind: f.kind, value, index: at, generic: false });
      from = at + Math.max(1, value.length);
    }
  }
  const quoted = re2(QUOTED);
  const unquoted = re2(UNQUOTED);
  const rules = unquotedValuesAreLiterals(file) ? [quoted, unquoted] : [quoted];
  let offset = 0;
  for (const line of text.split("\n")) {
    if (line.length <= 4096) {
      for (const re of rules) {
        const m = re.test(line) ? (re.exec(line) as (string[] & { index: number }) | null) : null;
        if (!m) continue;
        const value = m[2] as string;
        if (looksRandom(value, re === unquoted))
          out.push({
            rule: ASSIGNMENT_RULE,
            kind: "SecretAssignment",
            value,
            index: offset + line.indexOf(value, m.index),
            generic: true,
          });
        break;
      }
    }
    offset += line.length + 1;
  }
  return out;
}

/** RFC 2606 example hosts and the local machine: a URL credential there is an example or a dev default. */
function exampleHost(host: string): boolean {
  return /(^|\.)(example\.(com|net|org)|example|test|invalid|localhost)$|^localhost$|^127\.|^0\.0\.0\.0$|^\[::1\]$/.test(
    host.toLowerCase(),
  );
}

/**
 * A generic value that can be a credential: not a variable name (`OPENAI_API_KEY`), a reference
 * (`${X}`, `os.environ`), a dotted path or URL, or low-entropy text; unquoted values must mix in a digit
 * or a symbol too (a plain word after `password:` in YAML is usually a key name).
 */
function looksRandom(value: string, unquoted: boolean): boolean {
  if (/^[A-Z][A-Z0-9_]*$/.test(value)) return false;
  if (/^(https?|file|s3|gs):\/\//i.test(value) || (/^[\w-]+(\.[\w-]+){2,}$/.test(value) && !/\d/.test(value)))
    return false;
  if (/\$\{|\$\(|^\$|^%|^@|^&|^\*|^[({[].*[)}\]]$|\w\(.*\)$/.test(value)) return false;
  const h = entropy(value);
  // Unquoted, a digit or a symbol besides a name's own `_` and `-`: `token_normalize_func` and
  // `parent.token_normalize_func` are Python's names (click's core.py), not credentials.
  if (unquoted) return h >= 3.2 && /[0-9!@#%^&*+=/]/.test(value) && /[A-Za-z]/.test(value);
  // Quoted: random-looking, with a digit or a symbol beyond word separators, or long.
  return h >= 2.9 && (/[0-9!@#%^&*+=/~.]/.test(value) || value.length >= 20);
}
