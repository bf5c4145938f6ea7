import type { AuthorizationResponse } from "./authorization-response.js";
import { type LoopbackRedirect, responseFromPastedRedirect } from "./loopback-redirect.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";
import { openInBrowser } from "./open-browser.js";

/** Options of {@link createBrowserAuthorizer}. */
export interface BrowserAuthorizerOptions {
  /** Receives the redirect; its `redirectUrl` must be the provider's. */
  redirect: LoopbackRedirect;
  /** Tells the user what is happening and prints the URL (it must reach a human even when a browser opened). */
  show: (message: string, authorizationUrl: string) => void;
  /** Opens the URL; default {@link openInBrowser}. */
  open?: (url: string) => Promise<boolean>;
  /** Reads the redirect URL the user pastes when the browser cannot reach this machine (a line of input). */
  readPasted?: (signal: AbortSignal) => Promise<string | undefined>;
  /** How long to wait for the user (default five minutes). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * The user's part of the authorization-code flow, as the provider's `authorize`: shows and opens the
 * authorization URL, then resolves with the authorization response (code, `iss`) from whichever
 * comes first, the loopback redirect or a pasted redirect URL, provided its `state` is the one this
 * login sent (used once).
 */
export function createBrowserAuthorizer(
  options: BrowserAuthorizerOptions,
): (authorizationUrl: URL) => Promise<AuthorizationResponse> {
  return async (authorizationUrl) => {
    const state = authorizationUrl.searchParams.get("state");
    if (!state) {
      throw new OAuthFlowError(
        OAUTH_ERROR_CODES.authorizationFailed,
        "The authorization URL carries no state.",
      );
    }
    const href = authorizationUrl.href;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      // Listening for the redirect starts before the browser does: it may come back at once.
      const fromRedirect = options.redirect.waitForResponse(state, controller.signal);
      fromRedirect.catch(() => {});
      const opened = await (options.open ?? openInBrowser)(href);
      options.show(
        opened
          ? "Opened your browser to authorize. If it did not open, visit this URL:"
          : "Open this URL in a browser to authorize:",
        href,
      );
      const candidates = [fromRedirect];
      if (options.readPasted) candidates.push(pastedResponse(options.readPasted, state, controller.signal));
      return await Promise.race(candidates);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  };
}

async function pastedResponse(
  read: (signal: AbortSignal) => Promise<string | undefined>,
  state: string,
  signal: AbortSignal,
): Promise<AuthorizationResponse> {
  const line = await read(signal);
  if (line === undefined || line.trim() === "") {
    // No input (end of stdin): the loopback redirect may still arrive.
    return new Promise<AuthorizationResponse>((_resolve, reject) =>
      signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
    );
  }
  return responseFromPastedRedirect(line, state);
}
