/** The JSON pointer (in URI fragment form, `#/...`) of a schema's root. */
export const ROOT_POINTER = "#";

/** Appends one reference token to a pointer, escaping `~` and `/` as RFC 6901 requires. */
export function childPointer(pointer: string, token: string | number): string {
  const text = String(token);
  // Most tokens need no escape, and skipping replaceAll makes a schema check several times cheaper.
  const escaped =
    text.includes("~") || text.includes("/") ? text.replaceAll("~", "~0").replaceAll("/", "~1") : text;
  return `${pointer}/${escaped}`;
}

/**
 * Splits a local `$ref` (`#/a/b~1c`) into its unescaped tokens, or returns undefined when it is not a
 * local JSON pointer. The fragment is percent-decoded first, as a URI fragment must be.
 */
export function parseLocalPointer(ref: string): string[] | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined;
  return fragment
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}
