/** What a policy rule's `tool` pattern may contain: tool-name characters, plus `*` for any run of them. */
export const TOOL_PATTERN: RegExp = /^[a-zA-Z0-9_*-]+$/;

/** Whether `pattern` is a valid tool pattern (see {@link TOOL_PATTERN}). */
export function isToolPattern(pattern: string): boolean {
  return TOOL_PATTERN.test(pattern);
}

/**
 * Whether `toolName` matches `pattern`, where `*` matches any run of characters (empty included) and
 * every other character matches only itself. No regular expression is built from the pattern.
 */
export function matchesToolPattern(pattern: string, toolName: string): boolean {
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  if (parts.length === 1) return pattern === toolName;
  const last = parts[parts.length - 1] ?? "";
  if (toolName.length < first.length + last.length) return false;
  if (!toolName.startsWith(first) || !toolName.endsWith(last)) return false;
  // With `*` as the only wildcard, taking each middle part at its leftmost position is always correct.
  const end = toolName.length - last.length;
  let position = first.length;
  for (const middle of parts.slice(1, -1)) {
    if (middle === "") continue;
    const found = toolName.indexOf(middle, position);
    if (found === -1 || found + middle.length > end) return false;
    position = found + middle.length;
  }
  return true;
}
