/** Lines of unchanged context shown around a change. */
export const DIFF_CONTEXT_LINES = 2;

/**
 * A unified diff (`---`/`+++` headers, one `@@` hunk) of a text changed in one place, as edits in
 * place produce: the changed lines and {@link DIFF_CONTEXT_LINES} of context on each side. Empty
 * when nothing changed. The lines are raw text: escape them before they reach a terminal.
 */
export function unifiedDiff(before: string, after: string, label: string): string[] {
  if (before === after) return [];
  const old = splitLines(before);
  const next = splitLines(after);
  let prefix = 0;
  while (prefix < old.length && prefix < next.length && old[prefix] === next[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < old.length - prefix &&
    suffix < next.length - prefix &&
    old[old.length - 1 - suffix] === next[next.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  const from = Math.max(0, prefix - DIFF_CONTEXT_LINES);
  const oldEnd = old.length - suffix;
  const newEnd = next.length - suffix;
  const tail = Math.min(suffix, DIFF_CONTEXT_LINES);
  const oldCount = oldEnd - from + tail;
  const newCount = newEnd - from + tail;
  return [
    `--- ${label}`,
    `+++ ${label}`,
    `@@ -${rangeOf(from, oldCount)} +${rangeOf(from, newCount)} @@`,
    ...old.slice(from, prefix).map((line) => ` ${line}`),
    ...old.slice(prefix, oldEnd).map((line) => `-${line}`),
    ...next.slice(prefix, newEnd).map((line) => `+${line}`),
    ...old.slice(oldEnd, oldEnd + tail).map((line) => ` ${line}`),
  ];
}

// A final newline ends the last line rather than starting an empty one; CRLF counts as one ending.
function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

// GNU diff's convention: 1-based start; a hunk with no lines on one side names the line before it.
function rangeOf(from: number, count: number): string {
  if (count === 0) return `${from},0`;
  return count === 1 ? `${from + 1}` : `${from + 1},${count}`;
}
