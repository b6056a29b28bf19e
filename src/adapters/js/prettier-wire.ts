/** What the Prettier worker gets and sends back. */

export interface PrettierParams {
  /** Entry file of the prettier module to load (the project's or the bundled one). */
  entry: string;
  /** Canonical files or directories to format. */
  targets: string[];
  /** Extensions (with the dot) of the language's files, used when walking a directory. */
  extensions: string[];
  /**
   * The project's scope (`prettier --check .`): also these file names (Prettier's `.prettierrc`, ...), and
   * hidden files and folders, as Prettier's own CLI walks them (all but VCS folders and node_modules).
   */
  everything?: { filenames: string[]; interpreters?: string[] };
  /** The Prettier config file, or null for Prettier's defaults. */
  configFile: string | null;
  /** .prettierignore / .gitignore files to honour. */
  ignoreFiles: string[];
  /** Only these files (the result cache's misses) instead of walking the target. */
  files?: string[];
  /** Leave the formatted text out of the reply (a check without a diff does not need it). */
  withoutText?: boolean;
}

export interface PrettierChange {
  file: string;
  /** The formatted text ("" when asked without text). */
  after: string;
  /** The first changed line (old side), as the diff would show it. */
  line?: number;
}

export interface PrettierReply {
  changed: PrettierChange[];
  /** Files Prettier could not parse, with its message. */
  failed: { file: string; message: string }[];
  checked: number;
  /** Files the ignore files (or a missing parser) left out. */
  ignored?: string[];
}

/** What Prettier formats (its getSupportInfo): every language's extensions, file names and `#!` interpreters. */
export interface PrettierSupport {
  extensions: string[];
  filenames: string[];
  interpreters: string[];
}
