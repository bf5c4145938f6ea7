/**
 * Markup from data. Every string that reaches a page passes `escapeHtml`, and control characters
 * (ANSI escapes from a tool's result) are shown as visible `\u001b`-style text: a server- or
 * model-supplied string is always rendered as text, never as markup or terminal codes.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
});

/** `value` as HTML text: markup characters escaped, control characters (but newline and tab) made visible. */
export function escapeHtml(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  return text
    .replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character)
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is made visible
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

/** A tagged template whose interpolations are escaped unless they are `Markup` already. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += renderValue(value) + (strings[index + 1] ?? "");
  });
  return new Markup(out);
}

/** Markup built by `html` (safe to insert as is). */
export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function renderValue(value: unknown): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** A long text (a canonical input, a result) in a folding block with a copy button. */
export function foldedText(label: string, text: string): Markup {
  const long = text.length > 400;
  return html`<details class="fold"${long ? "" : new Markup(" open")}><summary>${label} (${text.length} characters)</summary>
<pre class="text">${text}</pre><button type="button" class="copy">Copy</button></details>`;
}
