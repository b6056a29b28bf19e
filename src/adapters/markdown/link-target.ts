/**
 * What a link points at, decided from its text alone (no file system): an external HTTP(S) URL, a
 * local file (with an optional fragment), a fragment in the same file, or another scheme that is not
 * checked.
 */
import path from "node:path";

export type LinkTarget =
  | { kind: "external"; url: string }
  | { kind: "local"; filePath: string; fragment: string | undefined; rooted: boolean }
  | { kind: "fragment"; fragment: string }
  | { kind: "skipped"; scheme: string };

const SCHEME = /^([a-zA-Z][a-zA-Z\d+.-]*):/;

/** Classifies a link destination. `filePath` is percent-decoded; query strings are dropped. */
export function classifyLink(url: string): LinkTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith("//")) return { kind: "external", url: `https:${trimmed}` };
  const scheme = SCHEME.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") return { kind: "external", url: trimmed };
  // One letter before a colon would be a Windows drive (C:\...), never a real scheme in a link.
  if (scheme && scheme.length > 1) return { kind: "skipped", scheme };
  const hash = trimmed.indexOf("#");
  const beforeHash = hash === -1 ? trimmed : trimmed.slice(0, hash);
  const fragment = hash === -1 ? undefined : trimmed.slice(hash + 1);
  const query = beforeHash.indexOf("?");
  const rawPath = query === -1 ? beforeHash : beforeHash.slice(0, query);
  if (rawPath === "") return { kind: "fragment", fragment: fragment ?? "" };
  return { kind: "local", filePath: decodePath(rawPath), fragment, rooted: rawPath.startsWith("/") };
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/**
 * The absolute path a local link names. Links starting with `/` are relative to the repository root
 * (as on GitHub); others to the linking file's directory.
 */
export function localTargetPath(
  target: { filePath: string; rooted: boolean },
  fromFile: string,
  repoRoot: string,
): string {
  return target.rooted
    ? path.join(repoRoot, target.filePath)
    : path.resolve(path.dirname(fromFile), target.filePath);
}

/** External URL without its fragment: the unit an HTTP check is done (and de-duplicated) for. */
export function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}
