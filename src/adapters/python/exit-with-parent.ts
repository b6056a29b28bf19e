/**
 * Preloaded (`node --import`) into pyright's watch process: it exits when the server's end of its stdin
 * closes, which happens however the server ends (SIGKILL included), so a watcher is never orphaned.
 */
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
