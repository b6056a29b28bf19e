/**
 * Where a command's data comes from and where it goes: the files and the environment a command prints
 * (`cat .env`, `env`, `base64 ~/.ssh/id_rsa`, a filter passing on what it reads), and what it sends to
 * the network (`curl -d @file`, `curl -T`, `wget --post-file`, `nc`/`ssh` reading stdin, `scp`/`rsync` to a
 * remote, a `/dev/tcp` redirection). The exfiltration policy judges the second by the first. Pure.
 */
import path from "node:path";

/** The environment as a whole (`env`, `printenv`, `set`, `/proc/self/environ`). */
export const ENVIRONMENT = "$ENV";

/** Programs that print what they read on stdin (changed or not) when given no file: the data passes through. */
const FILTERS = new Set([
  "cat",
  "tee",
  "head",
  "tail",
  "sed",
  "tr",
  "cut",
  "grep",
  "egrep",
  "fgrep",
  "awk",
  "gawk",
  "sort",
  "uniq",
  "base64",
  "base32",
  "xxd",
  "od",
  "hexdump",
  "gzip",
  "gunzip",
  "zcat",
  "bzip2",
  "xz",
  "zstd",
  "openssl",
  "gpg",
  "iconv",
  "dos2unix",
  "rev",
  "tac",
  "nl",
  "fold",
  "jq",
  "yq",
  "dd",
  "pv",
  "buffer",
  "stdbuf",
]);
/** Programs whose first operand is a program or pattern, not a file they read. */
const SCRIPT_FIRST = new Set(["grep", "egrep", "fgrep", "sed", "awk", "gawk", "jq", "yq"]);
/** Programs that print files named as operands. */
const READERS = new Set([...FILTERS, "less", "more", "strings", "tar", "zip", "7z", "cpio", "diff", "paste"]);

const resolve = (file: string, cwd: string | undefined, home: string): string => {
  const expanded = file === "~" || file.startsWith("~/") ? home + file.slice(1) : file;
  return cwd === undefined || expanded.startsWith("$") ? expanded : path.resolve(cwd, expanded);
};

/** `/proc/<pid>/environ` is the environment as a file. */
const asSource = (file: string) => (/^\/proc\/[^/]+\/environ$/.test(file) ? ENVIRONMENT : file);

/**
 * The files and environment read by the commands in a text's `$(…)` and backquotes (`"$(cat .env)"`,
 * `$(env)`): a static reading of the common forms, for what a dynamic argument carries.
 */
export function sourcesInText(text: string, cwd: string | undefined, home: string): string[] {
  if (!/\$\(|`/.test(text)) return [];
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\$\(|`)\s*([^`)]*)/g)) {
    const words = (m[1] as string).split(/\s+/).filter(Boolean);
    const name = path.basename(words[0] ?? "");
    if (["env", "printenv", "set"].includes(name) && words.length === 1) out.push(ENVIRONMENT);
    else if (name === "export" && words[1] === "-p") out.push(ENVIRONMENT);
    else if (READERS.has(name) || name === "<")
      for (const w of words.slice(SCRIPT_FIRST.has(name) ? 2 : 1))
        if (!w.startsWith("-")) out.push(asSource(resolve(w.replace(/^["']|["']$/g, ""), cwd, home)));
    // `$(<file)` reads the file.
    const redirect = /^<\s*(\S+)/.exec(m[1] as string);
    if (redirect) out.push(asSource(resolve((redirect[1] as string).replace(/^["']|["']$/g, ""), cwd, home)));
  }
  return out;
}

interface Fieldish {
  value: string;
  dynamic: boolean;
}
interface InputLike {
  from: string;
  sources?: string[];
}

/**
 * What a command prints: the program its data comes from (a filter passes on its input's producer) and the
 * data's sources (files it reads, `$ENV`), given its fields, its stdin and the files redirected into it.
 */
export function outputOf(
  fields: Fieldish[],
  input: InputLike | undefined,
  inputFiles: string[],
  cwd: string | undefined,
  home: string,
): { from: string; sources: string[] } {
  const argv = fields.map((f) => f.value);
  const name = path.basename(argv[0] ?? "");
  const sources: string[] = inputFiles.map(asSource);
  for (const f of fields.slice(1)) if (f.dynamic) sources.push(...sourcesInText(f.value, cwd, home));
  const options = argv.slice(1).filter((a) => a.startsWith("-"));
  const operands = argv.slice(1).filter((a) => !a.startsWith("-") || a === "-");
  if (["env", "printenv"].includes(name) && operands.length === 0) sources.push(ENVIRONMENT);
  if (name === "set" && argv.length === 1) sources.push(ENVIRONMENT);
  if ((name === "export" || name === "declare" || name === "typeset") && options.some((o) => /[px]/.test(o)))
    sources.push(ENVIRONMENT);
  let files = READERS.has(name) ? operands.slice(SCRIPT_FIRST.has(name) ? 1 : 0) : [];
  if (name === "tar") files = files.filter((f, i) => !(i === 0 && !f.includes("/") && /^[a-zA-Z]+$/.test(f)));
  for (const f of files) if (f !== "-") sources.push(asSource(resolve(f, cwd, home)));
  const readsStdin = FILTERS.has(name) && (files.length === 0 || files.includes("-") || name === "tee");
  if (readsStdin && input) {
    sources.push(...(input.sources ?? []));
    return { from: input.from || name, sources };
  }
  return { from: name, sources };
}

/** `host:path`, `user@host:path`, `scp://…`, `rsync://…`: a remote operand of scp/rsync/sftp. */
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^/:\s]*[A-Za-z0-9_.-]:(?!\/\/))/;

interface Command {
  argv: string[];
  dynamic: boolean[];
  stdin?: { sources?: string[] };
  cwd?: string;
  redirects: { path: string }[];
}

/** Options of curl whose value is data sent (`@file` reads a file, `@-` stdin). */
const CURL_DATA = /^(-d|--data|--data-ascii|--data-binary|--data-urlencode|--json|-F|--form|--form-string)$/;

/** What a command sends to the network: files (absolute when its directory is known) and `$ENV`. */
export function uploadsOf(command: Command, home: string, printed: string[]): string[] {
  const { argv, dynamic } = command;
  const name = path.basename(argv[0] ?? "");
  const cwd = command.cwd;
  const stdin = command.stdin?.sources ?? [];
  const out: string[] = [];
  const file = (f: string) => (f === "-" ? out.push(...stdin) : out.push(asSource(resolve(f, cwd, home))));
  // A redirection to /dev/tcp or /dev/udp sends what the command prints.
  if (command.redirects.some((r) => /^\/dev\/(tcp|udp)\//.test(r.path))) out.push(...printed);
  const carried = () => argv.forEach((a, i) => dynamic[i] && out.push(...sourcesInText(a, cwd, home)));
  if (name === "curl") {
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i] as string;
      const eq = a.startsWith("--") ? a.indexOf("=") : -1;
      const option = eq === -1 ? a : a.slice(0, eq);
      let value = eq === -1 ? undefined : a.slice(eq + 1);
      const short = /^-[A-Za-z]*([dFT])(.*)$/.exec(a);
      const isData = CURL_DATA.test(option) || (short !== null && short[1] !== "T");
      const isUpload = option === "-T" || option === "--upload-file" || (short !== null && short[1] === "T");
      if (!isData && !isUpload) continue;
      if (value === undefined) value = short && short[2] ? short[2] : argv[++i];
      if (value === undefined) continue;
      if (isUpload) file(value);
      else {
        // -d @file, -F name=@file, -F name=<file, --data-urlencode name@file
        const at = /^(?:[^=@<]*=)?[@<](.+)$/.exec(value) ?? /^[^=@]+@(.+)$/.exec(value);
        if (at) file(at[1] as string);
      }
    }
    carried();
  } else if (name === "wget") {
    argv.forEach((a, i) => {
      const m = /^--(post-file|body-file)(?:=(.*))?$/.exec(a);
      if (m) file(m[2] ?? argv[i + 1] ?? "");
    });
    carried();
  } else if (
    ["nc", "ncat", "netcat", "socat", "telnet", "ssh", "mail", "mailx", "sendmail", "mutt"].includes(name)
  ) {
    const listensOnly = argv.some((a) => /^-[a-zA-Z]*z/.test(a));
    if (!listensOnly) out.push(...stdin);
    carried();
  } else if (name === "http" || name === "https" || name === "xh" || name === "xhs") {
    for (const a of argv.slice(1)) {
      const m = /^[^=@:]+(?:=|:=)?@(.+)$/.exec(a);
      if (m) file(m[1] as string);
    }
    out.push(...stdin);
    carried();
  } else if (["scp", "sftp", "rsync", "rclone"].includes(name)) {
    const operands = argv
      .slice(1)
      .filter((a, i) => !a.startsWith("-") && !/^-(e|P|i|o|F)$/.test(argv[i] ?? ""));
    const dest = operands.at(-1);
    if (dest !== undefined && REMOTE.test(dest))
      for (const o of operands.slice(0, -1)) if (!REMOTE.test(o)) file(o);
  } else if (name === "gh" && argv[1] === "gist" && argv[2] === "create") {
    for (const a of argv.slice(3)) if (!a.startsWith("-")) file(a);
  } else if ((name === "aws" || name === "gsutil" || name === "gcloud") && argv.includes("cp")) {
    const operands = argv.slice(argv.indexOf("cp") + 1).filter((a) => !a.startsWith("-"));
    const dest = operands.at(-1) ?? "";
    if (/^(s3|gs):\/\//.test(dest)) for (const o of operands.slice(0, -1)) file(o);
  }
  return [...new Set(out)];
}
