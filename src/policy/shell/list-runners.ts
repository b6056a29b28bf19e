/**
 * Wrappers that run a command over a list: `xargs` and `find -exec` over a whole tree, spelled as the
 * command's recursive form on the tree's roots (`find . -exec chmod 777 {} +` is `chmod -R 777 .`), what a
 * producer lists, and GNU parallel's command lines.
 */
import path from "node:path";
import type { Script } from "./code-runners.js";
import { readFind } from "./find.js";
import type { SimpleCommand } from "./model.js";
import { skipOptions } from "./wrapper-options.js";

/** Programs that take a recursive flag, and which. */
const RECURSIVE_FLAG: Record<string, string> = {
  rm: "-r",
  chmod: "-R",
  chown: "-R",
  chgrp: "-R",
  setfacl: "-R",
  shred: "-r",
};

/** A command run over every file of a tree, spelled as its recursive form on the tree's roots. */
export function recursively(argv: string[]): string[] {
  const flag = RECURSIVE_FLAG[path.basename(argv[0] ?? "")];
  return flag ? [argv[0] as string, flag, ...argv.slice(1)] : argv;
}

/** The roots of what a producer lists when it lists whole trees (`find . -type f`, `ls`, `ls ~`). */
export function treeListed(producer: string[] | undefined): string[] | undefined {
  if (!producer?.length) return undefined;
  const name = path.basename(producer[0] as string);
  if (name === "find") {
    const found = readFind(producer);
    return found.broad ? found.starts : undefined;
  }
  if (name === "ls" || name === "fd" || name === "fdfind") {
    const operands = producer.slice(1).filter((a) => !a.startsWith("-"));
    if (name !== "ls" && operands.length) return undefined;
    return (operands.length ? operands : ["."]).map((d) => (d.endsWith("/") ? `${d}*` : `${d}/*`));
  }
  return undefined;
}

/**
 * GNU parallel: `parallel CMD ::: ARGS` runs CMD (through a shell) with each argument in place of `{}` (or
 * appended); with no CMD each argument is a command line; `::::` reads them from files; stdin when neither.
 */
export function parallel(command: SimpleCommand, script: Script): void {
  const { argv } = command;
  const sep = argv.findIndex((a, i) => i > 0 && /^:::[+]?$|^::::[+]?$/.test(a));
  const options = skipOptions(argv.slice(0, sep === -1 ? undefined : sep), 1, [
    "-j",
    "--jobs",
    "-S",
    "--sshlogin",
    "--joblog",
    "--results",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-I",
    "--colsep",
    "--tmpdir",
    "--workdir",
    "--timeout",
    "--retries",
    "-n",
    "--max-args",
    "-N",
    "--tag-string",
  ]);
  const template = argv.slice(options.at, sep === -1 ? undefined : sep);
  const inputs =
    sep === -1
      ? (command.stdin?.text?.split("\n").filter(Boolean) ?? [])
      : argv[sep]?.startsWith("::::")
        ? []
        : argv.slice(sep + 1).filter((a) => !/^:::[+]?$/.test(a));
  if (sep === -1 && command.stdin && command.stdin.text === undefined) {
    command.undecided =
      "parallel runs the commands it reads on stdin, which are only known when the line runs";
    return;
  }
  if (sep !== -1 && argv[sep]?.startsWith("::::")) {
    command.undecided = "parallel runs arguments read from a file, which are only known when the line runs";
    return;
  }
  if (command.dynamic.slice(1).some(Boolean))
    command.undecided = "parallel runs text that is only known when the line runs";
  for (const input of inputs.length ? inputs : [""]) {
    const text = template.length
      ? template.join(" ").includes("{}")
        ? template.join(" ").split("{}").join(input)
        : `${template.join(" ")} ${input}`
      : input;
    if (text.trim()) script(text, "parallel");
  }
}
