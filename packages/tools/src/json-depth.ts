/**
 * How deeply a tool's input may nest arrays and objects. Far beyond what any real tool takes, and
 * far below what recursive code (JSON.stringify, validators, canonical JSON) survives: an input
 * nested 20,000 levels deep must become a validation issue, never a stack overflow.
 */
export const MAX_INPUT_DEPTH = 128;

/**
 * Whether `value` nests arrays or objects more than `maxDepth` levels deep (a scalar is depth 0,
 * `[]` depth 1). Iterative, so it is safe on any input, however deep.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_INPUT_DEPTH): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > maxDepth) return true;
    for (const child of Object.values(item.value)) {
      if (typeof child === "object" && child !== null) pending.push({ value: child, depth });
    }
  }
  return false;
}
