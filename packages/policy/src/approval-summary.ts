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

/** The shortest a cut string value gets in a preview: enough to recognise it. */
const MIN_PREVIEW_STRING_CHARS = 16;

/** Array items a cut preview keeps; the rest are counted. */
const MAX_PREVIEW_ITEMS = 20;

/** Nesting a cut preview shows; deeper levels are replaced by a marker. */
const MAX_PREVIEW_DEPTH = 32;

/**
 * The input as canonical JSON on one line, with deceptive characters escaped. Past `maxChars`
 * characters it is cut **value by value, never dropping a key**: each long string is shortened (to
 * the longest length that makes the whole fit, but never below a recognisable prefix) and marked
 * with how much was cut, long arrays keep their first items, and a suffix says the preview was cut.
 * Padding one argument can thus never push another key out of sight; with very many keys the
 * preview may exceed `maxChars` rather than hide one.
 */
export function previewInput(input: unknown, maxChars: number = MAX_INPUT_PREVIEW_CHARS): string {
  const full = displayJson(input ?? null);
  if (full.length <= maxChars) return full;
  let budget = Math.max(MIN_PREVIEW_STRING_CHARS, maxChars);
  let text = renderCut(input ?? null, budget, 0);
  while (text.length > maxChars && budget > MIN_PREVIEW_STRING_CHARS) {
    budget = Math.max(MIN_PREVIEW_STRING_CHARS, Math.floor(budget / 2));
    text = renderCut(input ?? null, budget, 0);
  }
  return `${text} … (cut: long values shortened, every key kept; ${full.length} chars in all)`;
}

/** Whether {@link previewInput} had to cut: its marker ends the text. */
export function isCutPreview(preview: string): boolean {
  return / … \(cut: long values shortened, every key kept; \d+ chars in all\)$/.test(preview);
}

function renderCut(value: unknown, budget: number, depth: number): string {
  if (typeof value === "string") return displayJson(cutString(value, budget));
  if (value === null || typeof value !== "object") return displayJson(value);
  if (depth >= MAX_PREVIEW_DEPTH) return displayJson("…(deeper levels cut)");
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_PREVIEW_ITEMS).map((item) => renderCut(item, budget, depth + 1));
    if (value.length > MAX_PREVIEW_ITEMS)
      items.push(displayJson(`…(+${value.length - MAX_PREVIEW_ITEMS} items)`));
    return `[${items.join(",")}]`;
  }
  // Sorted like canonical JSON (by UTF-16 code units); every key is shown, cut only if very long.
  const keys = Object.keys(value).sort();
  const members = keys.map(
    (key) =>
      `${displayJson(cutString(key, Math.max(budget, 64)))}:${renderCut((value as Record<string, unknown>)[key], budget, depth + 1)}`,
  );
  return `{${members.join(",")}}`;
}

function cutString(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const kept = sliceWhole(text, maxChars);
  return `${kept}…(+${text.length - kept.length} chars)`;
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
  return `${sliceWhole(text, maxChars)}… (${text.length} chars in all)`;
}

/** The first `maxChars` code units of `text`, one fewer if that would split a surrogate pair. */
function sliceWhole(text: string, maxChars: number): string {
  let cut = maxChars;
  // Never split a surrogate pair: half a character would show as garbage.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut);
}
