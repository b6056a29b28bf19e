/**
 * The files a simple command writes, deletes, re-modes or links, by what the program does with its
 * operands: redirections (walk.ts), `tee`, `cp`/`mv`/`install`/`rsync` onto, `ln`, `sed -i`, `perl -i`,
 * `rm`/`unlink`/`shred`/`truncate`/`touch`/`chmod`/`chown`, `dd of=`, `curl -o`, `wget -O`, `sudoedit`,
 * `find -delete`, and file names in inline code that writes (`python -c "open(…, 'w')"`). Pure.
 */
import path from "node:path";
import { readFind } from "./find.js";
import { stringLiterals } from "./inline-tokens.js";
import type { LineFile, SimpleCommand, Write } from "./model.js";
import { readOptionWord, SUDO_SHORT_VALUE_OPTIONS } from "./wrapper-options.js";
import { printed } from "./static-values.js";
import { gitWrites, patchProgramWrites } from "./tool-writes.js";

const MODE_PROGRAMS = new Set(["chmod", "chown", "chgrp", "chattr", "setfacl", "touch"]);
const DELETE_PROGRAMS = new Set(["rm", "unlink", "rmdir", "shred", "srm", "trash", "trash-put", "gio"]);
/** Calls in inline code that write, delete or re-mode files. */
const WRITES_FILES =
  /\b(open|write|writeFile|writeFileSync|appendFile|appendFileSync|write_text|write_bytes|unlink|unlinkSync|remove|rmSync|rmdir|rename|renameSync|replace|chmod|chmodSync|copy|copyfile|copyFileSync|copytree|move|symlink|symlinkSync|link|truncate|File\.write|IO\.write|file_put_contents|fopen|touch)\b/;

/** Operands and options of a GNU-style command line (options may follow operands; `--` ends them). */
function operandsOf(argv: string[], dynamic: boolean[], valueOptions: readonly string[]) {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const operands: { value: string; dynamic: boolean }[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      for (let j = i + 1; j < argv.length; j++)
        operands.push({ value: argv[j] as string, dynamic: dynamic[j] ?? false });
      break;
    }
    if (!a.startsWith("-") || a === "-" || dynamic[i]) {
      operands.push({ value: a, dynamic: dynamic[i] ?? false });
      continue;
    }
    i = readOptionWord(argv, i, valueOptions, values, flags);
  }
  return { operands, values, flags };
}

const w = (value: string, kind: Write["kind"], dynamic: boolean, recursive = false): Write => ({
  path: value,
  kind,
  dynamic,
  ...(recursive ? { recursive: true } : {}),
});

/** Every file the command (after its wrappers were looked through) writes, its redirections included. */
export function writesOf(command: SimpleCommand): Write[] {
  const { argv, dynamic } = command;
  // What a static printer writes through its redirections is known (`echo '# noqa' >> m.py`).
  const printedText = dynamic.some(Boolean) ? undefined : printed(argv, command.stdin?.text);
  for (const r of command.redirects)
    if (printedText !== undefined && r.kind === "write") r.text = printedText;
  const out = [...command.redirects];
  if (argv.length === 0) return out;
  const name = path.basename(argv[0] as string);
  const recursive = (flags: Set<string>) =>
    ["-r", "-R", "--recursive", "-a", "--archive"].some((f) => flags.has(f));
  if (name === "tee") {
    const { operands, flags } = operandsOf(argv, dynamic, []);
    const text = command.stdin?.text;
    const append = flags.has("-a") || flags.has("--append");
    for (const o of operands)
      out.push({
        ...w(o.value, "write", o.dynamic),
        ...(text !== undefined ? { text } : {}),
        ...(append ? { append: true } : {}),
      });
  } else if (["cp", "mv", "install", "rsync", "scp"].includes(name)) {
    const { operands, values, flags } = operandsOf(argv, dynamic, [
      "-t",
      "--target-directory",
      "-S",
      "--suffix",
      "-m",
      "--mode",
      "-o",
      "--owner",
      "-g",
      "--group",
      "-e",
      "--rsh",
      "--exclude",
      "--include",
      "--filter",
      "-f",
    ]);
    const target = values.get("-t") ?? values.get("--target-directory");
    const sources = target !== undefined ? operands : operands.slice(0, -1);
    const dest = target ?? operands.at(-1)?.value;
    const destDynamic = target === undefined && (operands.at(-1)?.dynamic ?? false);
    const remote = (p: string) => /^[^/]*:/.test(p);
    const one = sources.length === 1 && !sources[0]?.dynamic ? sources[0]?.value : undefined;
    if (dest !== undefined && (sources.length > 0 || name === "install")) {
      out.push({ ...w(dest, "write", destDynamic, recursive(flags)), ...(one ? { copyOf: one } : {}) });
      // Onto a directory: each source lands under its own name there.
      for (const s of sources)
        out.push({
          ...w(path.posix.join(dest, path.posix.basename(s.value)), "write", destDynamic || s.dynamic),
          ...(s.dynamic ? {} : { copyOf: s.value }),
        });
      // A folder copied or moved: every file under it lands under the destination (`cp -r fake/. .`,
      // `rsync -a fake/ ./`, `mv x .claude`), each judged with its content.
      if (recursive(flags) || name === "mv")
        for (const s of sources) {
          if (remote(s.value) || remote(dest)) continue;
          const contents =
            /\/\.?\/?$/.test(s.value) && (name === "rsync" || /\/\.\/?$/.test(s.value))
              ? true
              : flags.has("-T") || flags.has("--no-target-directory");
          out.push({
            ...w(dest, "write", destDynamic || s.dynamic),
            tree: { from: s.value, into: contents ? "contents" : "auto" },
            ...(s.dynamic ? { why: `${s.value} copied into ${dest}` } : {}),
          });
        }
    }
    // mv removes its sources: a folder with everything under it (`mv .claude /tmp/x`).
    if (name === "mv")
      for (const s of sources) out.push({ ...w(s.value, "delete", s.dynamic, true), moved: true });
    // rsync --delete: files at the destination that the source lacks are deleted (its whole tree, at worst).
    if (
      name === "rsync" &&
      [...flags].some((f) => /^--del(ete(-[a-z]+)?)?$/.test(f)) &&
      dest !== undefined &&
      sources.length &&
      !/^[^/]*:/.test(dest)
    )
      out.push(w(dest, "delete", destDynamic, true));
  } else if (name === "ln") {
    const { operands, values } = operandsOf(argv, dynamic, ["-t", "--target-directory", "-S", "--suffix"]);
    const target = values.get("-t") ?? values.get("--target-directory");
    const sources = target !== undefined ? operands : operands.length > 1 ? operands.slice(0, -1) : operands;
    const dest = target ?? (operands.length > 1 ? operands.at(-1)?.value : ".");
    if (dest !== undefined) {
      out.push(w(dest, "link", false));
      for (const s of sources)
        out.push(w(path.posix.join(dest, path.posix.basename(s.value)), "link", s.dynamic));
    }
    // A new name for a protected file is a way to edit it: the file linked to is judged too.
    for (const s of sources) out.push(w(s.value, "link", s.dynamic));
  } else if (name === "sed" || name === "gsed") {
    const { operands, values, flags } = operandsOf(argv, dynamic, [
      "-e",
      "--expression",
      "-f",
      "--file",
      "-l",
      "--line-length",
    ]);
    const inPlace =
      [...flags].some((f) => f === "-i" || f === "--in-place") ||
      argv.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"));
    if (inPlace) {
      const scriptGiven =
        values.has("-e") || values.has("--expression") || values.has("-f") || values.has("--file");
      const scripts = scriptGiven
        ? [
            ...(values.get("-e") !== undefined ? [values.get("-e") as string] : []),
            ...(values.get("--expression") !== undefined ? [values.get("--expression") as string] : []),
          ]
        : operands.slice(0, 1).map((o) => o.value);
      // The text it inserts or substitutes is added; the rest of the result is not computed.
      const adds = scripts.flatMap(sedAdds);
      for (const o of scriptGiven ? operands : operands.slice(1))
        out.push({ ...w(o.value, "write", o.dynamic), adds, transformed: true });
    }
  } else if (name === "perl" && argv.some((a) => /^-(?![MmIdDxCl0])[a-zA-Z]*i/.test(a))) {
    const { operands } = operandsOf(argv, dynamic, ["-e", "-E", "-M", "-I"]);
    const hasE = argv.some((a) => /^-[a-zA-Z]*[eE]$/.test(a));
    const code = argv[argv.findIndex((a) => /^-[a-zA-Z]*[eE]$/.test(a)) + 1] ?? "";
    const adds = hasE ? sedAdds(code) : [];
    for (const o of hasE ? operands : operands.slice(1))
      out.push({ ...w(o.value, "write", o.dynamic), adds, transformed: true });
  } else if (DELETE_PROGRAMS.has(name)) {
    const { operands, flags } = operandsOf(argv, dynamic, ["-n", "--iterations", "-s", "--size"]);
    const files =
      name === "gio"
        ? operands[0]?.value === "trash" || operands[0]?.value === "remove"
          ? operands.slice(1)
          : []
        : operands;
    for (const o of files) out.push(w(o.value, "delete", o.dynamic, recursive(flags)));
  } else if (name === "chmod") {
    // `chmod -x f`: a mode may look like an option; only chmod's own options are options.
    const options =
      /^(-[cfvR]+|--(changes|silent|quiet|verbose|recursive|no-preserve-root|preserve-root|reference=.*|help|version))$/;
    const rest = argv.slice(1).map((a, i) => ({ value: a, dynamic: dynamic[i + 1] ?? false }));
    const flags = new Set(rest.filter((a) => options.test(a.value)).map((a) => a.value));
    const operands = rest.filter((a) => !options.test(a.value) && a.value !== "--");
    const reference = [...flags].some((f) => f.startsWith("--reference"));
    const files = reference ? operands : operands.slice(1);
    const rec = [...flags].some((f) => /^-[cfv]*R/.test(f) || f === "--recursive");
    // A mode that keeps the owner's read and execute bits (`chmod +x`, `chmod -R 755`) cannot disable a hook
    // or hide a file from the owner: it is not an edit.
    const mode = operands[0];
    const harmless =
      !reference &&
      mode !== undefined &&
      !mode.dynamic &&
      keepsOwnerAccess(mode.value) &&
      !grantsOthersWrite(mode.value);
    if (!harmless) for (const o of files) out.push(w(o.value, "mode", o.dynamic, rec));
  } else if (MODE_PROGRAMS.has(name)) {
    const { operands, flags, values } = operandsOf(argv, dynamic, [
      "--reference",
      "-t",
      "-d",
      "-r",
      "--date",
      "-m",
      "-x",
      "-M",
      "-X",
    ]);
    const files = name === "touch" || values.has("--reference") ? operands : operands.slice(1);
    for (const o of files) out.push(w(o.value, "mode", o.dynamic, recursive(flags)));
  } else if (name === "truncate") {
    const { operands } = operandsOf(argv, dynamic, ["-s", "--size", "-r", "--reference"]);
    for (const o of operands) out.push(w(o.value, "write", o.dynamic));
  } else if (name === "dd") {
    argv.forEach((a, i) => {
      if (a.startsWith("of=")) out.push(w(a.slice(3), "write", dynamic[i] ?? false));
    });
  } else if (name === "curl" || name === "wget") {
    // -o FILE, --output FILE, --output=FILE, -o in a cluster (-fsSLo FILE), -oFILE; wget's -O.
    const letter = name === "curl" ? "o" : "O";
    const long = name === "curl" ? "--output" : "--output-document";
    const alone = new RegExp(`^-[A-Za-z]*${letter}$`);
    const attached = new RegExp(`^-[A-Za-z]*${letter}.`);
    argv.forEach((a, i) => {
      let file: string | undefined;
      let dyn = dynamic[i] ?? false;
      if (a === long || alone.test(a)) {
        file = argv[i + 1];
        dyn = dynamic[i + 1] ?? false;
      } else if (a.startsWith(`${long}=`)) file = a.slice(long.length + 1);
      else if (!a.startsWith("--") && attached.test(a)) file = a.slice(a.indexOf(letter) + 1);
      if (file !== undefined && file !== "-") out.push(w(file, "write", dyn));
    });
  } else if (name === "sudoedit" || (name === "sudo" && argv.some((a) => a === "-e" || a === "--edit"))) {
    const { operands } = operandsOf(argv, dynamic, SUDO_SHORT_VALUE_OPTIONS);
    for (const o of operands) out.push(w(o.value, "write", o.dynamic));
  } else if (name === "find" && findDeletes(argv)) {
    // What it deletes: every file under its starting points, or those its -name patterns match.
    const found = readFind(argv);
    found.starts.forEach((start, k) => {
      if (!found.broad && !found.names) return; // narrowed by tests other than names: not known from the line
      out.push({
        ...w(start, "delete", dynamic[1 + k] ?? false, true),
        ...(found.names ? { names: found.names } : {}),
      });
    });
  } else if ((name === "node" || name === "nodejs") && argv.includes("--build-snapshot")) {
    // node --snapshot-blob FILE --build-snapshot entry.js writes FILE.
    argv.forEach((a, i) => {
      if (a === "--snapshot-blob" && argv[i + 1] !== undefined)
        out.push(w(argv[i + 1] as string, "write", dynamic[i + 1] ?? false));
      else if (a.startsWith("--snapshot-blob=")) out.push(w(a.slice(16), "write", dynamic[i] ?? false));
    });
  } else if (name === "patch") {
    out.push(...patchProgramWrites(command));
  } else if (name === "git") {
    out.push(...gitWrites(command));
  } else if (command.inline) {
    // What inline code writes is some of its literals: each is judged as an added line.
    const code = inlineCodeOf(argv);
    const literals = stringLiterals(code).filter((l) => l.length < 4096);
    for (const x of command.inline.writes)
      out.push({
        ...w(x.path, x.kind, x.dynamic, x.recursive === true),
        ...(x.kind === "write" ? { adds: literals.filter((l) => l !== x.path), transformed: true } : {}),
      });
    // A file call whose path the text does not give: any literal that could be a path may be the one.
    if (command.inline.unknownWrites) {
      if (WRITES_FILES.test(code))
        for (const literal of stringLiterals(code))
          if (literal && literal.length < 4096 && !/\s/.test(literal)) out.push(w(literal, "write", false));
    }
  }
  // `find … -exec cmd {} +` (or `find … | xargs cmd`): `{}` is each file find selects under its starting points.
  const found = command.found;
  if (found)
    return out.flatMap((x) =>
      x.dynamic && (x.path === "{}" || x.path === "$(<stdin>)")
        ? found.starts.map((s) => ({
            ...x,
            path: s,
            dynamic: false,
            recursive: true,
            ...(found.names ? { names: found.names } : { each: true }),
          }))
        : [x],
    );
  return out;
}

/** The code of `python -c`, `node -e`, … ("" when none). */
function inlineCodeOf(argv: string[]): string {
  const at = argv.findIndex(
    (a) => ["-c", "-e", "-E", "-r", "--eval", "-p", "--print"].includes(a) || /^-[A-Za-z]*[ce]$/.test(a),
  );
  return at === -1 ? "" : (argv[at + 1] ?? "");
}

/**
 * The text a sed (or perl) script puts into a file: each `s` command's replacement and each `a`, `i`, `c`
 * command's text, one line per `\n`. What it keeps of the file is not computed.
 */
export function sedAdds(script: string): string[] {
  const out: string[] = [];
  const unescape = (t: string) => t.replace(/\\n/g, "\n").replace(/\\(.)/g, "$1");
  for (const m of script.matchAll(/(?:^|[;\n{}\s\d$/])s(.)((?:\\.|(?!\1)[^\\])*)\1((?:\\.|(?!\1)[^\\])*)\1/g))
    out.push(...unescape(m[3] as string).split("\n"));
  for (const m of script.matchAll(/(?:^|[;\n{}\d$/])\s*[aic]\\?\s*(.+)$/gm))
    out.push(...unescape(m[1] as string).split("\n"));
  return out.map((l) => l.trim()).filter(Boolean);
}

/** Programs whose running on a found file deletes it. */
const DELETERS = new Set(["rm", "unlink", "shred", "srm", "rmdir", "trash", "trash-put"]);

/** `find … -delete`, or `-exec rm {} …` (any deleting program). */
function findDeletes(argv: string[]): boolean {
  return argv.some(
    (a, i) =>
      a === "-delete" ||
      (["-exec", "-execdir", "-ok", "-okdir"].includes(a) && DELETERS.has(path.basename(argv[i + 1] ?? ""))),
  );
}

/**
 * Whether a chmod mode leaves the owner's read and execute bits as they are or adds to them: an octal
 * mode with r and x for the owner (`755`, `0700`), or symbolic clauses that only add (`+x`, `u+rwx,go-w`)
 * or only take from group and others.
 */
export function keepsOwnerAccess(mode: string): boolean {
  if (/^[0-7]{1,4}$/.test(mode)) {
    const owner = Number(mode.padStart(4, "0")[1]);
    return (owner & 5) === 5;
  }
  return mode.split(",").every((clause) => {
    const m = /^([ugoa]*)([-+=][rwxXst]*)+$/.exec(clause);
    if (!m) return false;
    const who = m[1] as string;
    const touchesOwner = who === "" || /[ua]/.test(who);
    if (!touchesOwner) return true;
    for (const op of clause.slice(who.length).match(/[-+=][rwxXst]*/g) ?? []) {
      if (op.startsWith("+")) continue;
      if (op.startsWith("-") && !/[rx]/.test(op)) continue;
      if (op.startsWith("=") && /r/.test(op) && /[xX]/.test(op)) continue;
      return false;
    }
    return true;
  });
}

/** Whether a chmod mode gives others (or all) write permission: `777`, `o+w`, `a=rwx`, `+w`-free forms excluded. */
export function grantsOthersWrite(mode: string): boolean {
  if (/^[0-7]{1,4}$/.test(mode)) return (Number(mode.at(-1)) & 2) === 2;
  return mode.split(",").some((clause) => /^[ugo]*[oa][ugoa]*([-+=][rwxXst]*)*[+=][rwxXst]*w/.test(clause));
}

/**
 * Records what a command writes for the rest of the line (scope.files): a redirection of a static printer's
 * output keeps its text (`printf '[core]…' > /tmp/g`); anything else keeps the program that wrote it
 * (`curl -o x.sh URL`), so a later `sh x.sh` or `GIT_CONFIG_GLOBAL=/tmp/g` is read from the line.
 */
export function recordLineFiles(command: SimpleCommand, files: Map<string, LineFile>): void {
  const { argv, cwd } = command;
  if (argv.length === 0 && command.redirects.length === 0) return;
  const at = (p: string) =>
    path.isAbsolute(p) ? path.resolve(p) : cwd === undefined ? undefined : path.resolve(cwd, p);
  const name = path.basename(argv[0] ?? "");
  const staticArgs = !command.dynamic.some(Boolean);
  const text = staticArgs ? printed(argv, command.stdin?.text) : undefined;
  const origin =
    command.stdin?.from &&
    ["cat", "tee", "base64", "gunzip", "zcat", "head", "tail", "sed", "tr"].includes(name)
      ? command.stdin.from
      : name;
  for (const write of command.writes ?? writesOf(command)) {
    if (write.dynamic) continue;
    const file = at(write.path);
    if (file === undefined) continue;
    if (write.kind === "delete") files.delete(file);
    else if (write.kind !== "write") continue;
    else if (command.redirects.includes(write)) {
      // `>>` adds to what the line wrote before (known only if both are).
      const before = write.append ? files.get(file) : undefined;
      const joined = before
        ? before.text !== undefined && text !== undefined
          ? before.text + text
          : undefined
        : text;
      files.set(file, { ...(joined !== undefined ? { text: joined } : {}), producer: origin || "a command" });
    } else if (name === "tee")
      files.set(file, {
        ...(command.stdin?.text !== undefined ? { text: command.stdin.text } : {}),
        producer: command.stdin?.from || "tee",
      });
    else if (["cp", "install", "mv"].includes(name)) {
      const sources = argv
        .slice(1)
        .filter((a) => !a.startsWith("-"))
        .slice(0, -1);
      const copied = sources.length === 1 ? files.get(at(sources[0] as string) ?? "") : undefined;
      files.set(file, copied ?? { producer: name });
    } else files.set(file, { producer: name });
  }
}
