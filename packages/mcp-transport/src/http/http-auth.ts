import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
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
