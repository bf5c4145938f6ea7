import { canonicalJson, type JsonValue, type RegisteredTool } from "@agent/tools";

/** The most characters of input JSON an approval request keeps for display. */
export const MAX_INPUT_PREVIEW_CHARS = 2000;

/** The most characters of input JSON the one-line summary shows. */
const MAX_SUMMARY_INPUT_CHARS = 200;

/** The most characters of unverified hints the one-line summary shows. */
const MAX_SUMMARY_HINTS_CHARS = 200;

// Characters that can make displayed text lie about itself (bidirectional overrides, invisible
// separators, line separators JSON leaves raw); they are shown as \u escapes instead.
const DECEPTIVE_CHARACTERS = /[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * The input as canonical JSON on one line, with deceptive characters escaped, cut to `maxChars`
 * characters plus an ellipsis marker that says how long the whole was.
 */
export function previewInput(input: unknown, maxChars: number = MAX_INPUT_PREVIEW_CHARS): string {
  return truncate(displayJson(input ?? null), maxChars);
}

/**
 * One line for the operator: the tool, its effect, the input, and the tool author's annotations marked
 * as unverified, e.g. `mcp__docs__search (external) {"q":"x"} — server hints (unverified): readOnlyHint`.
 */
export function summarizeAction(
  tool: Pick<RegisteredTool, "name" | "effect" | "annotations">,
  input: unknown,
): string {
  const line = `${tool.name} (${tool.effect}) ${previewInput(input, MAX_SUMMARY_INPUT_CHARS)}`;
  const hints = describeHints(tool.annotations);
  return hints === "" ? line : `${line} — server hints (unverified): ${hints}`;
}

function describeHints(annotations: Readonly<Record<string, JsonValue>> | undefined): string {
  if (!annotations) return "";
  const described = Object.entries(annotations).map(([key, value]) => {
    const name = /^[a-zA-Z0-9_-]+$/.test(key) ? key : displayJson(key);
    return value === true ? name : `${name}=${displayJson(value)}`;
  });
  return truncate(described.join(", "), MAX_SUMMARY_HINTS_CHARS);
}

function displayJson(value: unknown): string {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch {
    text = `<${typeof value} not representable as JSON>`;
  }
  return text.replace(
    DECEPTIVE_CHARACTERS,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = maxChars;
  // Never split a surrogate pair: half a character would show as garbage.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}… (${text.length} chars in all)`;
}
