/** `git ls-files` options for a project's files as git knows them: tracked, and untracked but not ignored. */
export const PROJECT_FILES = ["--cached", "--others", "--exclude-standard", "--full-name", "--", "."];
