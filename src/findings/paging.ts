/**
 * offset / limit paging over a result's findings. Findings come in the tool's own order (file, then
 * position), which is the same on every call over unchanged files, so pages never overlap or skip.
 */

export interface PageRequest {
  /** Index of the first finding to list (0-based). */
  offset?: number;
  /** Most findings to list. */
  limit?: number;
}

export interface Page<T> {
  items: T[];
  offset: number;
  /** Where the next page starts, when there are findings after this one. */
  next_offset?: number;
}

/** True when the caller asked for a page rather than the default listing. */
export function isPaged(request: PageRequest): boolean {
  return request.offset !== undefined || request.limit !== undefined;
}

/** The page `request` names of `all` (a `limit` of undefined runs to the end). */
export function pageOf<T>(all: readonly T[], request: PageRequest): Page<T> {
  const offset = Math.min(request.offset ?? 0, all.length);
  const end = request.limit === undefined ? all.length : Math.min(all.length, offset + request.limit);
  const items = all.slice(offset, end);
  return { items, offset, ...(end < all.length ? { next_offset: end } : {}) };
}
