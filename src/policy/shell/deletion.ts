/** A deletion a command line makes (deletions.ts reads them; walk.ts records them on each simple command). */
export interface Deletion {
  /** Absolute when the directory is known; may hold glob characters. */
  path: string;
  /** Everything under it goes (rm -r, find -delete, rsync --delete, rmtree); else only the files it names. */
  recursive: boolean;
  /** Only untracked files go (git clean): the folder it runs in survives as the project. */
  untracked?: boolean;
  /** Moved away rather than deleted (mv): only the folder itself (or one holding it) counts. */
  moved?: boolean;
  /** Part of the name is only known when the line runs. */
  dynamic: boolean;
}
