import type { Redactor } from "@agent/mcp-transport";
import {
  createOAuthProvider,
  type OAuthCredentialStore,
  type OAuthCredentials,
  type OAuthProvider,
  type OAuthProviderOptions,
  storedTokenState,
} from "@agent/mcp-transport/oauth";
import type { HttpServerConfig } from "../config/index.js";

/** How an HTTP server stands with OAuth, as `mcp list` shows it. */
export type ServerAuthState = "none" | "authorized" | "expired" | "login required";

/** Whether OAuth applies: not turned off with `"oauth": false`, and no static Authorization header instead. */
export function usesOAuth(server: HttpServerConfig): boolean {
  if (server.oauth === false) return false;
  if (server.oauth) return true;
  return !Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization");
}

/** What to tell a user whose server needs a login that cannot happen here. */
export function loginHint(server: string, agent: string): string {
  return `Server "${server}" needs you to log in: run \`${agent} mcp login ${server}\``;
}

/** The provider options a server entry's configuration gives (the caller adds `authorize` for a login). */
export function providerOptions(
  server: HttpServerConfig,
  store: OAuthCredentialStore,
  agent: string,
): OAuthProviderOptions {
  const oauth = server.oauth || undefined;
  const options: OAuthProviderOptions = {
    server: server.name,
    url: server.url,
    store,
    loginHint: loginHint(server.name, agent),
  };
  if (!oauth) return options;
  options.grant = oauth.grant;
  if (oauth.clientId) {
    options.client = { clientId: oauth.clientId };
    if (oauth.clientSecret) options.client.clientSecret = oauth.clientSecret;
    if (oauth.tokenEndpointAuthMethod) options.client.tokenEndpointAuthMethod = oauth.tokenEndpointAuthMethod;
    if (oauth.privateKey) options.client.privateKey = oauth.privateKey;
    if (oauth.signingAlgorithm) options.client.signingAlgorithm = oauth.signingAlgorithm;
    if (oauth.clientAssertion) options.client.clientAssertion = oauth.clientAssertion;
  }
  if (oauth.clientMetadataUrl) options.clientMetadataUrl = oauth.clientMetadataUrl;
  if (oauth.scopes) options.scopes = oauth.scopes;
  if (oauth.issuer) options.expectedIssuer = oauth.issuer;
  if (oauth.endpointOrigins) options.endpointOrigins = oauth.endpointOrigins;
  return options;
}

/** The non-interactive provider of a server for ordinary commands: stored tokens, refresh, client credentials; a needed login fails at once with {@link loginHint}. */
export function createServerAuthProvider(
  server: HttpServerConfig,
  store: OAuthCredentialStore,
  agent: string,
): OAuthProvider | undefined {
  return usesOAuth(server) ? createOAuthProvider(providerOptions(server, store, agent)) : undefined;
}

/** The server's auth state from its provider (after connecting) and what is stored. */
export async function serverAuthState(
  server: HttpServerConfig,
  provider: OAuthProvider | undefined,
  store: OAuthCredentialStore,
): Promise<ServerAuthState> {
  if (!provider) return "none";
  if (provider.loginRequired) return "login required";
  return storedTokenState(await store.load(server.name), server.url);
}

/**
 * `store`, teaching `redactor` every token and client secret it loads or saves, so a server that
 * echoes the bearer token it was sent (or one just issued or refreshed) shows `[redacted]`, in
 * output and in the audit trail alike.
 */
export function redactingCredentialStore(
  store: OAuthCredentialStore,
  redactor: Redactor,
): OAuthCredentialStore {
  const learn = (credentials: OAuthCredentials | undefined): OAuthCredentials | undefined => {
    const client = credentials?.client as { client_secret?: unknown } | undefined;
    const { access_token, refresh_token, id_token } = credentials?.tokens ?? {};
    for (const value of [access_token, refresh_token, id_token, client?.client_secret]) {
      if (typeof value === "string") redactor.learn(value);
    }
    return credentials;
  };
  return {
    load: async (server) => learn(await store.load(server)),
    save: (server, credentials) => {
      learn(credentials);
      return store.save(server, credentials);
    },
    remove: (server) => store.remove(server),
  };
}
