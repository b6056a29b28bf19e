/**
 * What `node dist/hook.js pre-commit --daemon` loads to ask the check daemon (bundled into one file,
 * dist/bundle/hook-daemon-client.mjs, by scripts/bundle-hook.mjs): the hook's daemon flags and the client.
 */
export { hookDaemonChoice } from "../check/daemon/flags.js";
export { preCommitThroughDaemon } from "../check/daemon/client.js";
