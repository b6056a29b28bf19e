/**
 * The words tools/list says about arguments many tools share, in one place so they read the same everywhere.
 * They cost every client's context (docs/result-budgets.md#toolslist): what the argument is and what it is
 * relative to, in a few words.
 */

/** A project's file or folder (relative paths resolve against the server's working directory, "cwd"). */
export const PATH_DOC = "File or folder, relative to cwd";
/** The same, where it only locates the project. */
export const PROJECT_DOC = "Project folder, relative to cwd";
export const CONFIG_DOC = "Config file, relative to cwd";
export const FILES_DOC = "Files or globs under path";
export const BY_LANGUAGE_DOC = "Default: by language";
