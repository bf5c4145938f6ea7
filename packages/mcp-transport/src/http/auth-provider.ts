import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";

/**
 * An OAuth client provider for the HTTP transports: the SDK's `OAuthClientProvider` (the SDK's
 * transports run discovery, registration, PKCE, refresh and step-up through it), plus two optional
 * hooks the transport uses around it.
 */
export interface McpAuthProvider extends OAuthClientProvider {
  /** The credential values held right now (tokens, client secret), removed from every message. */
  secretValues?(): Iterable<string>;
  /**
   * Called when a request failed because the user had to authorize first (the SDK asked for a
   * redirect). Resolves `true` once that authorization completed, so the request is sent again
   * (once); `false` leaves the failure as it is.
   */
  awaitAuthorization?(): Promise<boolean>;
  /**
   * Told when the server answered 403 `insufficient_scope` naming `scope` (step-up): the SDK would
   * first try the refresh token, which cannot widen a grant, so the provider can withhold it.
   */
  stepUpRequested?(scope: string | undefined): void;
}

/** Options every HTTP transport (Streamable HTTP, legacy SSE) takes for OAuth. */
export interface HttpAuthOptions {
  /**
   * Authorizes requests with OAuth (see `@agent/mcp-transport/oauth`): its access token is sent to
   * this transport's URL only, and a 401 or a 403 `insufficient_scope` runs the SDK's auth flow.
   */
  authProvider?: McpAuthProvider;
}
