/**
 * Where a SARIF result's file is: file: URIs, relative URIs decoded, and `originalUriBaseIds` resolved to
 * absolute folders.
 */
import { optObj, optStr, type Obj } from "./sarif-input.js";

/** The folder a file: URI names (undefined for other schemes). */
export function fileUriPath(uri: string): string | undefined {
  if (!/^file:/i.test(uri)) return undefined;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
  }
}

export function decodeRelative(uri: string): string {
  let out: string;
  try {
    out = uri.split("/").map(decodeURIComponent).join("/");
  } catch {
    out = uri;
  }
  return out.replace(/^(\.\/)+/, "");
}

/** `originalUriBaseIds` as absolute folders (each may chain to another base; followed a few steps). */
export function baseFolders(bases: Obj | undefined, at: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!bases) return out;
  const resolve = (id: string, depth: number): string | undefined => {
    const b = optObj(bases[id], `${at}.${id}`);
    const uri = b && optStr(b.uri, `${at}.${id}.uri`);
    if (!b || uri === undefined) return undefined;
    const abs = fileUriPath(uri);
    if (abs) return abs;
    const parentId = optStr(b.uriBaseId, `${at}.${id}.uriBaseId`);
    if (!parentId || depth > 4) return undefined;
    const parent = resolve(parentId, depth + 1);
    return parent ? joinPath(parent, decodeRelative(uri)) : undefined;
  };
  for (const id of Object.keys(bases)) {
    const folder = resolve(id, 0);
    if (folder) out.set(id, folder.endsWith("/") ? folder : `${folder}/`);
  }
  return out;
}

export function joinPath(folder: string, rel: string): string {
  return `${folder.replace(/\/+$/, "")}/${rel.replace(/^\/+/, "")}`;
}
