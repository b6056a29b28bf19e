/**
 * The `check --html` page's static text: its style sheet and the script that shows the findings a page at
 * a time (html.ts puts both inline, so the page loads nothing).
 */

export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa;--err:#cf222e;--warn:#9a6700;--note:#0969da;--ok:#1a7f37}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1200px;margin:0 auto;padding:16px 24px}header{border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}.muted{color:var(--muted)}
.totals{display:flex;gap:12px;flex-wrap:wrap;margin-top:12px}.total{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}
.total b{display:block;font-size:22px}.error{color:var(--err)}.warning{color:var(--warn)}.note{color:var(--note)}.passed{color:var(--ok)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{background:var(--panel);font-weight:600}
.status-findings,.status-failed{color:var(--err);font-weight:600}.status-skipped{color:var(--warn)}.status-passed{color:var(--ok)}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{border:1px solid var(--line);border-radius:8px;padding:8px}.chart h3{margin:0 0 4px;font-size:14px}
svg.trend .axis{stroke:var(--line)}svg.trend .tick{font-size:10px;fill:var(--muted)}svg.trend polyline.total{stroke:var(--note);stroke-width:2}svg.trend circle.total{fill:var(--note)}
svg.trend polyline.errors{stroke:var(--err);stroke-width:1.5;stroke-dasharray:4 3}svg.trend circle.errors{fill:var(--err)}
.controls{display:flex;gap:12px;align-items:center;flex-wrap:wrap;margin:8px 0}.controls input[type=search]{padding:5px 8px;min-width:260px;border:1px solid var(--line);border-radius:6px}
button{padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:var(--panel);cursor:pointer}button[aria-pressed=true]{background:var(--fg);color:#fff}
.group{margin:14px 0 4px;font-weight:600}.finding{border:1px solid var(--line);border-radius:8px;margin:6px 0;overflow:hidden}
.finding .head{padding:6px 10px;background:var(--panel);display:flex;gap:10px;flex-wrap:wrap}.finding .pos{font-family:ui-monospace,monospace;color:var(--muted)}
.finding .rule{font-family:ui-monospace,monospace;font-weight:600}pre.code{margin:0;padding:6px 0;font:12px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;overflow-x:auto}
pre.code span{display:block;padding:0 10px;white-space:pre}pre.code span.hit{background:#fff8c5}pre.code i{display:inline-block;width:4.5em;color:var(--muted);font-style:normal;user-select:none}
.pager{display:flex;gap:8px;align-items:center;margin:12px 0}
`;

/** The page's script: renders the findings a page at a time (textContent only), by file or by rule, filtered. */
export const SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById("mcq-data").textContent);
  const LEVELS = ["error", "warning", "note"];
  const PAGE = 100;
  const list = document.getElementById("findings");
  const info = document.getElementById("page-info");
  const filter = document.getElementById("filter");
  const levelBoxes = [...document.querySelectorAll("input[name=level]")];
  let view = "file";
  let page = 0;
  let shown = data.findings;
  const ruleName = (f) => data.rules[f[4]].rule;
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function snippet(f) {
    const windows = data.snippets[f[0]];
    if (!windows || !f[1]) return null;
    for (const [first, lines] of windows) {
      if (f[1] < first || f[1] >= first + lines.length) continue;
      const pre = el("pre", "code");
      const from = Math.max(first, f[1] - 2);
      const to = Math.min(first + lines.length - 1, f[1] + 2);
      for (let n = from; n <= to; n++) {
        const row = el("span", n === f[1] ? "hit" : "");
        row.append(el("i", "", String(n)), document.createTextNode(lines[n - first]));
        pre.append(row);
      }
      return pre;
    }
    return null;
  }
  function card(f) {
    const box = el("div", "finding");
    const head = el("div", "head");
    const level = LEVELS[f[3]];
    head.append(
      el("span", "pos", (view === "rule" ? data.files[f[0]] + ":" : "") + (f[1] ? f[1] + ":" + (f[2] || 1) : "-")),
      el("span", level, level),
      el("span", "rule", ruleName(f) + " (" + data.rules[f[4]].tool + ")"),
      el("span", "msg", f[5]),
    );
    box.append(head);
    const code = snippet(f);
    if (code) box.append(code);
    return box;
  }
  function apply() {
    const text = filter.value.trim().toLowerCase();
    const levels = new Set(levelBoxes.filter((b) => b.checked).map((b) => Number(b.value)));
    shown = data.findings.filter(
      (f) =>
        levels.has(f[3]) &&
        (!text ||
          data.files[f[0]].toLowerCase().includes(text) ||
          ruleName(f).toLowerCase().includes(text) ||
          f[5].toLowerCase().includes(text)),
    );
    if (view === "rule")
      shown = [...shown].sort((a, b) => ruleName(a).localeCompare(ruleName(b)) || data.files[a[0]].localeCompare(data.files[b[0]]) || a[1] - b[1]);
    page = 0;
    render();
  }
  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    const rows = shown.slice(page * PAGE, page * PAGE + PAGE);
    const frag = document.createDocumentFragment();
    let group;
    for (const f of rows) {
      const key = view === "file" ? data.files[f[0]] || "(no file)" : ruleName(f) + " (" + data.rules[f[4]].tool + ")";
      if (key !== group) {
        group = key;
        frag.append(el("div", "group", key));
      }
      frag.append(card(f));
    }
    list.replaceChildren(frag);
    info.textContent = shown.length
      ? "findings " + (page * PAGE + 1) + "–" + (page * PAGE + rows.length) + " of " + shown.length + " · page " + (page + 1) + " of " + pages
      : "no findings match";
    document.getElementById("prev").disabled = page === 0;
    document.getElementById("next").disabled = page >= pages - 1;
  }
  document.getElementById("prev").onclick = () => { page--; render(); window.scrollTo(0, list.offsetTop - 80); };
  document.getElementById("next").onclick = () => { page++; render(); window.scrollTo(0, list.offsetTop - 80); };
  for (const b of document.querySelectorAll("button[data-view]"))
    b.onclick = () => {
      view = b.dataset.view;
      for (const o of document.querySelectorAll("button[data-view]")) o.setAttribute("aria-pressed", String(o === b));
      apply();
    };
  let timer;
  filter.oninput = () => { clearTimeout(timer); timer = setTimeout(apply, 150); };
  for (const b of levelBoxes) b.onchange = apply;
  apply();
  document.documentElement.dataset.rendered = String(performance.now());
})();
`;
