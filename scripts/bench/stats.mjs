// Small statistics and the result table. Medians, because a GC pause or a scheduler hiccup in one
// sample must not move a result.

/** The median of `values` (the mean of the two middle ones for an even count). */
export function median(values) {
  return quantile(values, 0.5);
}

/** The `q` quantile (0..1) of `values`, by linear interpolation. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/** Milliseconds for the table: microseconds below 1 ms, where they matter. */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return "-";
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  if (ms < 100) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(0)} ms`;
}

/** Bytes for the table: B below 1 KiB, then KiB or MiB (binary units) to three significant digits. */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return "-";
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  return `${value.toFixed(Math.abs(value) < 10 ? 2 : 1)} ${units[unit]}`;
}

/** Calls per second for the table. */
export function formatRate(perSecond) {
  return Number.isFinite(perSecond) ? `${Math.round(perSecond).toLocaleString("en-US")}/s` : "-";
}

/**
 * A row of the result table. `better` says which direction is good: "lower" rows (times) pass when
 * ours/raw <= target, "higher" rows (throughput) when ours/raw >= target. Rows without a target are
 * shown for context (a breakdown) and never fail.
 */
export function resultRow({ metric, ours, raw, format, target, better = "lower" }) {
  const ratio = ours / raw;
  const hasTarget = target !== undefined;
  const passed = !hasTarget || (better === "lower" ? ratio <= target : ratio >= target);
  return {
    metric,
    ours: format(ours),
    raw: format(raw),
    ratio: Number.isFinite(ratio) ? `${ratio.toFixed(3)}x` : "-",
    target: hasTarget ? `${better === "lower" ? "<=" : ">="} ${target}x` : "",
    verdict: hasTarget ? (passed ? "PASS" : "MISS") : "",
    hasTarget,
    passed,
  };
}

const COLUMNS = [
  ["metric", "metric"],
  ["ours", "ours"],
  ["raw", "raw / baseline"],
  ["ratio", "ratio"],
  ["target", "target"],
  ["verdict", "result"],
];

/** Renders rows as a plain-text table, one line per row, numbers right-aligned. */
export function renderTable(rows) {
  const widths = COLUMNS.map(([key, title]) =>
    Math.max(title.length, ...rows.map((row) => String(row[key]).length)),
  );
  const line = (cells) =>
    cells
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[index]) : cell.padStart(widths[index])))
      .join("  ")
      .trimEnd();
  const header = line(COLUMNS.map(([, title]) => title));
  const rule = "-".repeat(header.length);
  return [header, rule, ...rows.map((row) => line(COLUMNS.map(([key]) => String(row[key]))))].join("\n");
}
