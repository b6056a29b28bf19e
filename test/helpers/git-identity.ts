/** The environment of a test's real git commits: the server's, with an author and committer set. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
} as const;

export const gitEnv: NodeJS.ProcessEnv = { ...process.env, ...GIT_IDENTITY };
