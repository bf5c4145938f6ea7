import { extractWWWAuthenticateParams, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createRedactor } from "../redact.js";
import type { McpAuthProvider } from "./auth-provider.js";

/** Extends `redact` with the provider's current credentials, read at each message (tokens change). */
export function authRedactor(
  redact: (text: string) => string,
  provider: McpAuthProvider | undefined,
): (text: string) => string {
  const secretValues = provider?.secretValues?.bind(provider);
  if (!secretValues) return redact;
  return (text) => createRedactor(secretValues())(redact(text));
}

/**
 * Decides whether a failed request is sent again: only after the SDK gave up with
 * `UnauthorizedError` (the server refused it before doing anything) and the provider then completed
 * the authorization it was waiting for.
 */
export function retryAfterAuthorization(provider: McpAuthProvider): (error: unknown) => Promise<boolean> {
  return async (error) => {
    if (!(error instanceof UnauthorizedError) || !provider.awaitAuthorization) return false;
    try {
      return await provider.awaitAuthorization();
    } catch {
      return false;
    }
  };
}

/** Wraps `fetch` so the provider hears of every 403 `insufficient_scope` before the SDK reacts to it. */
export function observeStepUp(fetchFn: FetchLike, provider: McpAuthProvider | undefined): FetchLike {
  const stepUpRequested = provider?.stepUpRequested?.bind(provider);
  if (!stepUpRequested) return fetchFn;
  return async (url, init) => {
    const response = await fetchFn(url, init);
    if (response.status === 403) {
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error === "insufficient_scope") stepUpRequested(scope);
    }
    return response;
  };
}
