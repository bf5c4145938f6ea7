import type { JsonSpan } from "./parse-json-text.js";

// Edits JSON text in place, touching only the characters a change needs: every other byte of the
// file (its indentation, spacing, key order, number spellings, final newline) stays as written.

/** An array or object of a {@link JsonSpan} tree. */
type JsonContainerSpan = Extract<JsonSpan, { kind: "array" | "object" }>;

/**
 * `text` with `value` added as the last item of the array at `array`, written the way the items
 * before it are (inline like the first one-line item, `{ "a": 1 }` or `{"a":1}`; else over lines).
 */
export function appendArrayItem(
  text: string,
  array: Extract<JsonSpan, { kind: "array" }>,
  value: unknown,
): string {
  const last = array.items.at(-1);
  if (!last) return fillEmpty(text, array, (layout) => render(value, layout));
  const separator = text.slice(delimiterBefore(text, last.start) + 1, last.start);
  // Written on one line if any item before it is (rules with a reason are often spread over lines).
  const oneLine = array.items.find((item) => !isMultiline(text, item));
  const item = render(value, layoutLike(text, oneLine ?? last));
  return splice(text, last.end, `,${separator}${item}`);
}

/**
 * `text` with the property `key: value` added as the last member of the object at `object`, its
 * separator and colon spacing copied from the member before it.
 */
export function appendObjectMember(
  text: string,
  object: Extract<JsonSpan, { kind: "object" }>,
  key: string,
  value: unknown,
): string {
  const last = object.members.at(-1);
  if (!last) return fillEmpty(text, object, (layout) => `${JSON.stringify(key)}: ${render(value, layout)}`);
  const separator = text.slice(delimiterBefore(text, last.keyStart) + 1, last.keyStart);
  const colon = text.slice(last.keyEnd, last.value.start);
  const layout: Layout = isMultiline(text, object)
    ? {
        multiline: true,
        indent: lineIndentAt(text, last.keyStart),
        unit: indentUnitOf(text),
        eol: lineEndOf(text),
      }
    : { multiline: false, spaced: colon.endsWith(" ") };
  return splice(text, last.value.end, `,${separator}${JSON.stringify(key)}${colon}${render(value, layout)}`);
}

/**
 * `text` without the member `key` of the object at `object` (and the comma that separated it); an
 * object left empty becomes `{}`. The text is returned as it is when there is no such member.
 */
export function removeObjectMember(
  text: string,
  object: Extract<JsonSpan, { kind: "object" }>,
  key: string,
): string {
  const index = object.members.findIndex((member) => member.key === key);
  const member = object.members[index];
  if (!member) return text;
  if (object.members.length === 1) return splice(text, object.start, "{}", object.end);
  const next = object.members[index + 1];
  // Before another member: up to that member's key; the last one: from the end of the one before it.
  if (next) return splice(text, member.keyStart, "", next.keyStart);
  const previous = object.members[index - 1];
  return previous ? splice(text, previous.value.end, "", member.value.end) : text;
}

/** How a new value is written: over indented lines, or on one line with or without inner spaces. */
type Layout =
  | { multiline: true; indent: string; unit: string; eol: string }
  | { multiline: false; spaced: boolean };

// An empty container gets its first entry on a line of its own when the document spans lines.
function fillEmpty(text: string, container: JsonContainerSpan, entry: (layout: Layout) => string): string {
  const [open, close] = container.kind === "array" ? ["[", "]"] : ["{", "}"];
  if (!text.trim().includes("\n")) {
    return splice(
      text,
      container.start,
      `${open} ${entry({ multiline: false, spaced: true })} ${close}`,
      container.end,
    );
  }
  const indent = lineIndentAt(text, container.start);
  const unit = indentUnitOf(text);
  const eol = lineEndOf(text);
  const written = entry({ multiline: true, indent: indent + unit, unit, eol });
  return splice(
    text,
    container.start,
    `${open}${eol}${indent}${unit}${written}${eol}${indent}${close}`,
    container.end,
  );
}

function layoutLike(text: string, sibling: JsonSpan): Layout {
  const written = text.slice(sibling.start, sibling.end);
  if (written.includes("\n")) {
    return {
      multiline: true,
      indent: lineIndentAt(text, sibling.start),
      unit: indentUnitOf(text),
      eol: lineEndOf(text),
    };
  }
  return { multiline: false, spaced: /^[{[] |": /.test(written) };
}

function render(value: unknown, layout: Layout): string {
  if (layout.multiline)
    return JSON.stringify(value, null, layout.unit).replaceAll("\n", `${layout.eol}${layout.indent}`);
  return inline(value, layout.spaced);
}

// One line; `spaced` writes `{ "a": 1, "b": [1, 2] }`, as people and formatters write short objects.
function inline(value: unknown, spaced: boolean): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => inline(item, spaced)).join(spaced ? ", " : ",")}]`;
  }
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(
      ([key, item]) => `${JSON.stringify(key)}:${spaced ? " " : ""}${inline(item, spaced)}`,
    );
    if (members.length === 0) return "{}";
    return spaced ? `{ ${members.join(", ")} }` : `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function isMultiline(text: string, span: JsonSpan): boolean {
  return text.slice(span.start, span.end).includes("\n");
}

// The offset of the `,`, `[` or `{` before the entry starting at `offset` (only whitespace between).
function delimiterBefore(text: string, offset: number): number {
  let index = offset - 1;
  while (index >= 0 && /\s/.test(text.charAt(index))) index -= 1;
  return index;
}

/** The whitespace a line starts with, for the line holding `offset`. */
function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** The file's indentation step: that of its first indented line, else two spaces. */
function indentUnitOf(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
}

/** The file's line ending: CRLF if it uses one, else LF. */
function lineEndOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function splice(text: string, start: number, insert: string, end = start): string {
  return `${text.slice(0, start)}${insert}${text.slice(end)}`;
}
