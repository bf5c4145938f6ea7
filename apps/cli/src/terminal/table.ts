/**
 * Renders rows as aligned columns (the last column is never padded). Cells must already be safe
 * text. With `width`, the last column (a description) is cut so that no row is wider: rows never wrap.
 */
export function formatTable(
  rows: string[][],
  options: { indent?: string; gap?: string; width?: number | undefined } = {},
): string[] {
  const indent = options.indent ?? "";
  const gap = options.gap ?? "  ";
  if (options.width !== undefined) rows = fitLastColumn(rows, options.width - indent.length, gap.length);
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

/** The width tables must fit: the terminal's columns, else `COLUMNS`; unknown (no limit) otherwise. */
export function terminalWidth(stream: object, env: NodeJS.ProcessEnv): number | undefined {
  const { columns } = stream as { columns?: unknown };
  if (typeof columns === "number" && columns > 0) return columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

/** The narrowest a cut last column gets: past that, the row is left wider rather than unreadable. */
const MIN_LAST_COLUMN = 12;

function fitLastColumn(rows: string[][], width: number, gap: number): string[][] {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, visibleLength(cell));
    });
  }
  const used = widths.reduce((sum, cellWidth) => sum + cellWidth + gap, 0);
  const room = Math.max(MIN_LAST_COLUMN, width - used);
  return rows.map((row) => {
    const last = row[row.length - 1] ?? "";
    // Our styled header cells are short; only plain text is cut, so no color code is split.
    if (row.length === 0 || visibleLength(last) <= room || last !== stripStyle(last)) return row;
    return [...row.slice(0, -1), truncate(last, room)];
  });
}

/** Cuts text to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, Math.max(0, max - 1))}…`;
}

// Our own color codes take no room on screen.
function visibleLength(text: string): number {
  return stripStyle(text).length;
}

function stripStyle(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ANSI sequences we emit ourselves
  return text.replace(/\u001b\[\d+m/g, "");
}

/** `1 tool`, `2 tools`: a count with its noun, plural by an `s` unless told otherwise. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}
