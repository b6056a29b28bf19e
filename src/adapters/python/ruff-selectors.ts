/**
 * Whether a ruff rule selector (as in `select`, `ignore`, per-file ignores) covers a rule code, as ruff reads
 * it: `ALL`, a whole code, or a code prefix whose letters name the linter exactly and whose digits start the
 * code's (`T` is flake8-debugger and flake8-print, not TC, TD or TRY; `C` is C4 and C90, not CPY). Pylint's
 * `PL` covers its four categories (PLC, PLE, PLR, PLW).
 */
export function selectorCovers(selector: string, code: string): boolean {
  if (selector === "ALL" || selector === code) return true;
  if (selector === "PL") return /^PL[CERW]\d/.test(code);
  const s = /^([A-Z]+)(\d*)$/.exec(selector);
  const c = /^([A-Z]+)(\d+)$/.exec(code);
  return Boolean(s && c && s[1] === c[1] && (c[2] as string).startsWith(s[2] as string));
}
