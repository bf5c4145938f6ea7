// A key or argument part that looks like a credential: long, of token characters only, with both
// letters and digits (paths and package names have separators; words have no digits).
const TOKEN_LIKE = /^[A-Za-z0-9._~+=-]{16,}$/;
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const MAX_SHOWN_KEY_LENGTH = 64;

/** Whether `text` has the shape of a token (16+ of `A-Za-z0-9._~+=-`, with letters and digits). */
export function looksLikeToken(text: string): boolean {
  return TOKEN_LIKE.test(text) && /[0-9]/.test(text) && /[A-Za-z]/.test(text);
}

/**
 * Whether a configuration key may be quoted in a message: a plain name (`timeoutMs`, `API_TOKEN`)
 * of at most 64 characters that does not look like a credential (16+ characters mixing letters and
 * digits, underscores included). Anything else may be a pasted secret and is never shown.
 */
export function isShowableKey(key: string): boolean {
  if (!PLAIN_KEY.test(key) || key.length > MAX_SHOWN_KEY_LENGTH) return false;
  return !(key.length >= 16 && /[0-9]/.test(key) && /[A-Za-z]/.test(key));
}

/** How a key that may not be shown appears in a message. */
export const HIDDEN_KEY = "<key not shown>";
