/** Renders rows as aligned columns (the last column is never padded). Cells must already be safe text. */
export function formatTable(rows: string[][], options: { indent?: string; gap?: string } = {}): string[] {
  const indent = options.indent ?? "";
  const gap = options.gap ?? "  ";
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, visibleLength(cell));
    });
  }
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell + " ".repeat((widths[column] ?? 0) - visibleLength(cell)),
        )
        .join(gap)
        .trimEnd(),
  );
}

/** Cuts text to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, Math.max(0, max - 1))}…`;
}

// Our own color codes take no room on screen.
function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ANSI sequences we emit ourselves
  return text.replace(/\u001b\[\d+m/g, "").length;
}
