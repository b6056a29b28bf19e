/**
 * Folders a walk over the project's scope never enters: those Prettier's CLI never walks into (its
 * expand-patterns), whatever the ignore files say, and the server's own `.mcp-cache` (transactions).
 */
export const PRETTIER_SKIPPED_DIRS: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  ".sl",
  ".svn",
  ".hg",
  ".jj",
  ".mcp-cache",
]);
