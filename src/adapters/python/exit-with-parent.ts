/**
 * Preloaded (`node --import`) into pyright's language server: it exits when the server's end of its
 * stdin closes, which happens however the server ends (SIGKILL included), so it is never orphaned.
 * It only listens: the language server itself reads stdin (its JSON-RPC stream), and a second reader
 * would take messages from it.
 */
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
