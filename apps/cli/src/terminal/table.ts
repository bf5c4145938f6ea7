/** Options of {@link formatTable}. */
export interface TableOptions {
  indent?: string;
  gap?: string;
  /** The width no row may exceed (see {@link terminalWidth}); unknown means no limit. */
  width?: number | undefined;
  /**
   * Columns (by index, never the last) that may be left out when even a cut last column does not
   * fit, in the order they are given up: the least useful first.
   */
  optional?: readonly number[];
}

/**
 * Renders rows (the first one usually the header) as aligned columns; the last column is never
 * padded. Cells must already be safe text. With `width`, no row is wider, so rows never wrap: the
 * last column (free text: a description, a summary) is cut with an ellipsis, down to
 * {@link MIN_LAST_COLUMN} characters; past that, `optional` columns are left out; past that too,
 * the row is left wider rather than unreadable.
 */
export function formatTable(rows: string[][], options: TableOptions = {}): string[] {
  const indent = options.indent ?? "";
  const gap = options.gap ?? "  ";
  if (options.width !== undefined) {
    const room = options.width - indent.length;
    rows = fitLastColumn(
      dropOptionalColumns(rows, room, gap.length, options.optional ?? []),
      room,
      gap.length,
    );
  }
  const widths = columnWidths(rows, Number.POSITIVE_INFINITY);
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

/** The narrowest a cut last column gets: past that, columns are left out, or the row left wider. */
const MIN_LAST_COLUMN = 12;

/** The widest cell of each of the first `columns` columns. */
function columnWidths(rows: string[][], columns: number): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, columns).forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, visibleLength(cell));
    });
  }
  return widths;
}

// The width the rows need once their last column is cut as far as it may be.
function neededWidth(rows: string[][], gap: number): number {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  if (columns === 0) return 0;
  const fixed = columnWidths(rows, columns - 1).reduce((sum, cellWidth) => sum + cellWidth + gap, 0);
  const last = Math.max(0, ...rows.map((row) => visibleLength(row[columns - 1] ?? "")));
  return fixed + Math.min(last, MIN_LAST_COLUMN);
}

function dropOptionalColumns(
  rows: string[][],
  width: number,
  gap: number,
  optional: readonly number[],
): string[][] {
  const dropped = new Set<number>();
  let kept = rows;
  for (const column of optional) {
    if (neededWidth(kept, gap) <= width) break;
    dropped.add(column);
    kept = rows.map((row) => row.filter((_, index) => !dropped.has(index) || index === row.length - 1));
  }
  return kept;
}

function fitLastColumn(rows: string[][], width: number, gap: number): string[][] {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const used = columnWidths(rows, columns - 1).reduce((sum, cellWidth) => sum + cellWidth + gap, 0);
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
  if (oneLine.length <= max) return oneLine;
  // By code point, so no surrogate pair is split into two unprintable halves.
  const characters = Array.from(oneLine);
  return characters.length <= max ? oneLine : `${characters.slice(0, Math.max(0, max - 1)).join("")}…`;
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
