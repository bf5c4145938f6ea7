import { extractWWWAuthenticateParams, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createRedactor } from "../redact.js";
import type { RetryDecision } from "../sdk/create-sdk-transport.js";
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
 * the authorization it was waiting for. An authorization that failed fails the request with its own
 * error (a refused login, an `iss` that names another issuer), which says more than "unauthorized".
 */
export function retryAfterAuthorization(
  provider: McpAuthProvider,
): (error: unknown) => Promise<RetryDecision> {
  return async (error) => {
    if (!(error instanceof UnauthorizedError) || !provider.awaitAuthorization) return { retry: false };
    try {
      return { retry: await provider.awaitAuthorization() };
    } catch (failure) {
      return { retry: false, error: failure };
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
