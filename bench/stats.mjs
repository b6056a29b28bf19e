// Small helpers shared by the benchmarks.
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Times `fn` `n` times (after `warmup` untimed calls), returning the durations in ms. */
export async function timeIt(fn, n, warmup = 1) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

export const ms = (v) => Math.round(v * 100) / 100;
