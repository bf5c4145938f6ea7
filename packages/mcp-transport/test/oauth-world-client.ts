import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import {
  createBrowserAuthorizer,
  createMemoryCredentialStore,
  createOAuthProvider,
  type OAuthCredentialStore,
  startLoopbackRedirect,
} from "@agent/mcp-transport/oauth";
import { onTestFinished } from "vitest";
import { closeAfterTest } from "./helpers.js";
import type { OAuthWorld } from "./oauth-world.js";

/**
 * An OAuth client of `world` as a user configures one: our provider with a real loopback listener
 * and the browser authorizer (the world plays the browser), over our Streamable HTTP transport.
 * Everything it opens is closed when the current test ends.
 */
export async function connectToWorld(
  world: OAuthWorld,
  store: OAuthCredentialStore = createMemoryCredentialStore(),
) {
  const redirect = await startLoopbackRedirect();
  onTestFinished(() => redirect.close());
  const provider = createOAuthProvider({
    server: "secure",
    url: world.mcpUrl,
    store,
    redirectUrl: redirect.redirectUrl,
    authorize: createBrowserAuthorizer({ redirect, show: () => {}, open: world.open, timeoutMs: 10_000 }),
    fetch: world.fetch,
  });
  const transport = closeAfterTest(
    createStreamableHttpTransport({ url: world.mcpUrl, authProvider: provider, fetch: world.fetch }),
  );
  return { provider, store, transport };
}
