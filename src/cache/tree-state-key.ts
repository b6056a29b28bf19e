/**
 * The result cache's key for the tree scan's stored walks of one allowed root (paths/tree-persist.ts): of
 * the build, since a walk's meaning is the code's, and of the root.
 */
import { buildId } from "./build-id.js";
import { sha256 } from "./hash.js";

export function treeStateKey(root: string): string {
  return sha256(`mcq-tree-scan/v2\0${buildId()}\0${root}`);
}
