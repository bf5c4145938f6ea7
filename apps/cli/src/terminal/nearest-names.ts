/**
 * The names closest to `wanted` by edit distance (Levenshtein, case-insensitive), best first: at
 * most `limit` of them, and only those close enough to be a likely typo (a third of the longer name).
 */
export function nearestNames(wanted: string, names: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  return names
    .map((name) => ({ name, distance: editDistance(target, name.toLowerCase()) }))
    .filter(
      ({ name, distance }) => distance <= Math.max(2, Math.ceil(Math.max(name.length, wanted.length) / 3)),
    )
    .sort((left, right) => left.distance - right.distance || left.name.localeCompare(right.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

/** Levenshtein distance with one row of memory. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = (previous[column - 1] ?? 0) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
