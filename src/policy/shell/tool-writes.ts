/**
 * Writes of programs that change files by what they read rather than by the names on the line: `patch` and
 * `git apply` (the files the patch names, with the lines it adds), and git's own work-tree writes (`git rm`,
 * `git mv`, `git checkout [rev] -- paths`, `git restore`): each path they name, and everything under a
 * folder; those that rewrite files from a revision, a stash or the index, as git answered (git/rev-files.ts).
 * A patch is read from disk when its name is static (at most 1 MiB); one that cannot be read, or a
 * pathspec with wildcards or magic, is a write whose names are only known when it runs (undecided).
 */
import fs from "node:fs";
import path from "node:path";
import { filesOfDiff } from "../edit-context.js";
import type { SimpleCommand, Write } from "./model.js";

const MAX_PATCH_BYTES = 1024 * 1024;

function readPatch(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return st.isFile() && st.size <= MAX_PATCH_BYTES ? fs.readFileSync(file, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

const unknown = (why: string, kind: Write["kind"] = "write"): Write => ({
  path: why,
  kind,
  dynamic: true,
  why,
});

/**
 * The files a patch text writes (or removes), each with the lines it adds and removes. `strip` is
 * `-pN` (git diffs' `a/`/`b/` count as one); undefined: patch's default, which may use the bare name too.
 */
export function patchWrites(text: string, strip: number | undefined, dir: string, reverse: boolean): Write[] {
  const out: Write[] = [];
  for (const f of filesOfDiff(text)) {
    if (!f.path) continue;
    const parts = f.path.split("/");
    const names =
      strip === undefined
        ? [f.path, parts.at(-1) as string]
        : [parts.slice(Math.max(0, strip - 1)).join("/")].filter(Boolean);
    for (const name of new Set(names)) {
      const deleted = reverse ? f.created : f.deleted;
      out.push({
        path: path.posix.join(dir, name),
        kind: deleted ? "delete" : "write",
        dynamic: false,
        adds: reverse ? f.removed : f.added,
        removes: reverse ? f.added : f.removed,
      });
    }
  }
  return out;
}

/** The patch a command reads: `-i FILE`, a file operand, or its stdin (a file `<` feeds it, or static text). */
function patchText(command: SimpleCommand, file: string | undefined): { text?: string; name: string } {
  const at = (p: string) => (command.cwd === undefined ? p : path.resolve(command.cwd, p));
  if (file !== undefined) return { ...optional(readPatch(at(file))), name: file };
  if (command.stdin?.text !== undefined) return { text: command.stdin.text, name: "its input" };
  const source = command.stdin?.sources?.length === 1 ? command.stdin.sources[0] : undefined;
  if (source !== undefined && !source.startsWith("$") && command.stdin?.from === "")
    return { ...optional(readPatch(at(source))), name: source };
  return { name: command.stdin?.from ? `what ${command.stdin.from} prints` : "its input" };
}

const optional = (text: string | undefined) => (text !== undefined ? { text } : {});

/** `patch [-pN] [-i FILE] [-d DIR] [-R] [--dry-run] [ORIGFILE [PATCHFILE]]`. */
export function patchProgramWrites(command: SimpleCommand): Write[] {
  const { argv, dynamic } = command;
  let strip: number | undefined;
  let input: string | undefined;
  let dir = ".";
  let output: string | undefined;
  let reverse = false;
  const operands: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] as string;
    if (dynamic[i]) return [unknown(`the files patch changes (${a})`)];
    let m: RegExpExecArray | null;
    if (a === "--dry-run" || a === "-C" || a === "--check") return [];
    if ((m = /^(?:-p|--strip=)(\d+)$/.exec(a))) strip = Number(m[1]);
    else if (a === "-p" || a === "--strip") strip = Number(argv[++i]);
    else if (a === "-i" || a === "--input") input = argv[++i];
    else if (a.startsWith("--input=")) input = a.slice(8);
    else if (/^-i./.test(a)) input = a.slice(2);
    else if (a === "-d" || a === "--directory") dir = argv[++i] ?? ".";
    else if (a.startsWith("--directory=")) dir = a.slice(12);
    else if (a === "-o" || a === "--output") output = argv[++i];
    else if (a.startsWith("--output=")) output = a.slice(9);
    else if (a === "-R" || a === "--reverse") reverse = true;
    else if (a === "-D" || a === "-F" || a === "-z" || a === "-V" || a === "-r" || a === "-B" || a === "-Y")
      i++;
    else if (!a.startsWith("-") || a === "-") operands.push(a);
  }
  const { text, name } = patchText(command, input ?? operands[1]);
  if (text === undefined) return [unknown(`the files the patch in ${name} changes`)];
  const writes = patchWrites(text, strip, dir, reverse);
  // An output file, or the file named on the line, takes every hunk.
  const target = output ?? operands[0];
  if (target !== undefined && target !== "-")
    return [{ path: target, kind: "write", dynamic: false, adds: writes.flatMap((w) => w.adds ?? []) }];
  return writes;
}

/** Where git's own work-tree writes go: the paths `rm`, `mv`, `checkout`, `restore`, `apply` name. */
export function gitWrites(command: SimpleCommand): Write[] {
  const inv = command.git;
  if (!inv) return [];
  const flags = new Set(inv.flags);
  const has = (...f: string[]) => f.some((x) => flags.has(x));
  const dyn = command.dynamic.some(Boolean);
  const base = inv.cwd ?? command.cwd;
  const at = (p: string) => (base === undefined ? p : path.resolve(base, p));
  // A pathspec git expands itself (`*.json` matches in every folder, `:(glob)`, `:/`) is not one path.
  const magic = (p: string) => /[*?[]/.test(p) || p.startsWith(":");
  // From another version (`checkout REV --`, `restore --source`), everything under a folder it names is
  // rewritten with content the line does not show; from the index, the files named (`git checkout .`
  // discards work, which destructive.disk_or_discard asks about).
  const fromRev =
    (rev: boolean) =>
    (p: string, kind: Write["kind"]): Write =>
      dyn || magic(p)
        ? unknown(`the files git ${inv.subcommand} ${p} ${kind === "delete" ? "removes" : "writes"}`, kind)
        : kind === "delete"
          ? { path: at(p), kind, dynamic: false, recursive: true, git: true }
          : rev
            ? { path: at(p), kind, dynamic: false, tree: { from: at(p), into: "contents", git: true } }
            : { path: at(p), kind, dynamic: false };
  const named = fromRev(true);
  // Files rewritten from a revision, a stash or the index, as git answered (git/rev-files.ts).
  if (inv.rewrites !== undefined) {
    if (dyn) return [unknown(`the files git ${inv.subcommand} rewrites`)];
    if ("undecided" in inv.rewrites) return [unknown(inv.rewrites.undecided)];
    return inv.rewrites.files.map((f) => ({
      path: f.path,
      kind: f.kind,
      dynamic: false,
      git: true,
      ...(f.text !== undefined ? { text: f.text } : {}),
    }));
  }
  const ops = inv.operands;
  // Where `--` stood: what follows it is paths, whatever it looks like.
  const dashes = command.argv.indexOf("--", command.argv.indexOf(inv.subcommand) + 1);
  const afterDashes = dashes === -1 ? undefined : command.argv.length - dashes - 1;
  switch (inv.subcommand) {
    case "rm":
      if (has("--cached") || has("--dry-run", "-n")) return [];
      return ops.map((p) => named(p, "delete"));
    case "mv": {
      if (has("--dry-run", "-n") || ops.length < 2) return [];
      const dest = ops.at(-1) as string;
      return ops.slice(0, -1).flatMap((s) => [
        named(s, "delete"),
        dyn || magic(s) || magic(dest)
          ? named(dest, "write")
          : {
              path: at(dest),
              kind: "write" as const,
              dynamic: false,
              tree: { from: at(s), into: "auto" as const },
            },
      ]);
    }
    case "checkout": {
      if (has("-b", "-B", "--orphan")) return [];
      const rev = afterDashes !== undefined ? ops.length > afterDashes : ops.length >= 2;
      const paths =
        afterDashes !== undefined
          ? ops.slice(ops.length - afterDashes)
          : ops.length >= 2
            ? ops.slice(1)
            : ops.filter((p) => !dyn && fs.existsSync(at(p)));
      return paths.map((p) => fromRev(rev)(p, "write"));
    }
    case "restore":
      if (has("--staged", "-S") && !has("--worktree", "-W")) return [];
      return ops.map((p) => fromRev(inv.values["--source"] !== undefined)(p, "write"));
    case "apply": {
      if (has("--check", "--stat", "--numstat", "--summary") && !has("--apply")) return [];
      const strip = inv.values["-p"]?.at(-1);
      const directory = inv.values["--directory"]?.at(-1) ?? ".";
      const reverse = has("--reverse", "-R");
      const files = ops.length ? ops : [undefined];
      return files.flatMap((f) => {
        if (dyn) return [unknown(`the files git apply ${f ?? ""} changes`)];
        const { text, name } = patchText(command, f);
        if (text === undefined) return [unknown(`the files the patch in ${name} changes`)];
        return patchWrites(text, strip === undefined ? 1 : Number(strip), directory, reverse).map((w) => ({
          ...w,
          path: at(w.path),
        }));
      });
    }
    default:
      return [];
  }
}
