/**
 * A real OAuth 2.1 authorization server and a protected MCP server on loopback, for tests: the
 * SDK's own server-side auth (`mcpAuthRouter`: metadata, dynamic registration, authorization with
 * PKCE verified at the token endpoint, refresh; `requireBearerAuth` on the MCP endpoint) on express,
 * plus what the SDK's server does not offer and tests need: HTTP Basic client authentication, the
 * client-credentials grant (secret or private_key_jwt), step-up scopes per tool, short-lived tokens,
 * and switches that make its metadata hostile. The authorization endpoint approves at once (it plays
 * the user who clicks "allow") by redirecting to the client's redirect URI. Every request it sees is
 * recorded for assertions. Needs `express` (an optional peer dependency).
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import express, { type Request, type Response } from "express";
import { clientCredentialsGrant, normalizeClientAuthentication } from "./client-authentication.js";
import { protectedMcpRoute } from "./protected-mcp-route.js";

/** Options of {@link startOAuthTestServer}. */
export interface OAuthTestServerOptions {
  /** Scopes the authorization server advertises (`scopes_supported`) and the resource metadata too. */
  scopesSupported?: string[];
  /** Scopes a token needs for any MCP request; a tool listed in `toolScopes` needs those as well. */
  requiredScopes?: string[];
  /** Extra scopes per tool name, asked for with a 403 `insufficient_scope` (step-up). */
  toolScopes?: Record<string, string[]>;
  /** Access token lifetime in seconds (default 3600). */
  tokenLifetimeSeconds?: number;
  /** Token endpoint auth methods to advertise (default basic, post, none; add `private_key_jwt` for JWT clients). */
  tokenEndpointAuthMethods?: string[];
  /** Clients known beforehand (pre-registration, client credentials). */
  clients?: OAuthClientInformationFull[];
  /** Public keys (PEM, by client id) for `private_key_jwt` client assertions. */
  clientJwtKeys?: Record<string, string>;
  /** Advertise `client_id_metadata_document_supported` and accept https client ids as they come. */
  clientIdMetadataDocuments?: boolean;
  /** Turn dynamic registration off. */
  disableRegistration?: boolean;
  /** Replaces fields of the authorization server metadata (hostile metadata tests). */
  metadataOverrides?: Record<string, unknown>;
  /** Replaces fields of the protected resource metadata (e.g. another `resource`). */
  resourceMetadataOverrides?: Record<string, unknown>;
  /** Answers every authorization server metadata request with a 302 to this URL (another origin, say). */
  redirectMetadataTo?: string;
}

/** One request the servers saw (bodies are form or JSON fields). */
export interface OAuthTestRecord {
  kind: "metadata" | "register" | "authorize" | "token" | "mcp";
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  /** `basic`, `post`, `jwt` or `none`: how the client authenticated at the token endpoint. */
  clientAuthentication?: string;
  authorization?: string;
}

/** A running authorization server + protected MCP server. */
export interface OAuthTestServer {
  /** The MCP endpoint (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  /** The authorization server's issuer (`http://127.0.0.1:<port>/`). */
  issuer: string;
  records: OAuthTestRecord[];
  /** Access tokens issued so far, newest last. */
  issuedAccessTokens(): string[];
  /** Makes every access token issued so far invalid (as if it expired). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface CodeGrant {
  client: string;
  challenge: string;
  redirectUri: string;
  scopes: string[];
  resource?: string;
}

interface TokenGrant {
  client: string;
  scopes: string[];
  expiresAt: number;
  resource?: string;
}

/** Starts both servers on one loopback port. */
export async function startOAuthTestServer(options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const records: OAuthTestRecord[] = [];
  const clients = new Map<string, OAuthClientInformationFull>(
    (options.clients ?? []).map((client) => [client.client_id, client]),
  );
  const codes = new Map<string, CodeGrant>();
  const accessTokens = new Map<string, TokenGrant>();
  const refreshTokens = new Map<string, TokenGrant>();
  const issued: string[] = [];
  const lifetime = options.tokenLifetimeSeconds ?? 3600;

  const issue = (grant: Omit<TokenGrant, "expiresAt">, withRefresh: boolean): OAuthTokens => {
    const accessToken = `at_${randomUUID()}`;
    accessTokens.set(accessToken, { ...grant, expiresAt: Date.now() + lifetime * 1000 });
    issued.push(accessToken);
    const tokens: OAuthTokens = { access_token: accessToken, token_type: "Bearer", expires_in: lifetime };
    if (grant.scopes.length > 0) tokens.scope = grant.scopes.join(" ");
    if (withRefresh) {
      const refreshToken = `rt_${randomUUID()}`;
      refreshTokens.set(refreshToken, { ...grant, expiresAt: Number.POSITIVE_INFINITY });
      tokens.refresh_token = refreshToken;
    }
    return tokens;
  };

  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (clientId) => {
        const known = clients.get(clientId);
        if (known || !options.clientIdMetadataDocuments || !clientId.startsWith("https://")) return known;
        // A metadata-document client id: accepted as it comes (the test plays the fetched document).
        return {
          client_id: clientId,
          redirect_uris: ["http://127.0.0.1/callback"],
          token_endpoint_auth_method: "none",
        };
      },
      ...(options.disableRegistration
        ? {}
        : {
            registerClient: (client: OAuthClientInformationFull) => {
              clients.set(client.client_id, client);
              return client;
            },
          }),
    },
    async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, response: Response) {
      const code = `code_${randomUUID()}`;
      codes.set(code, {
        client: client.client_id,
        challenge: params.codeChallenge,
        redirectUri: params.redirectUri,
        scopes: params.scopes ?? [],
        ...(params.resource ? { resource: params.resource.href } : {}),
      });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      response.redirect(302, target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const grant = codes.get(code);
      if (!grant) throw new Error("unknown authorization code");
      return grant.challenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      const grant = codes.get(code);
      codes.delete(code);
      if (!grant || grant.client !== client.client_id) throw new Error("invalid authorization code");
      if (redirectUri !== undefined && redirectUri !== grant.redirectUri)
        throw new Error("redirect_uri mismatch");
      const resourceHref = resource?.href ?? grant.resource;
      return issue(
        {
          client: client.client_id,
          scopes: grant.scopes,
          ...(resourceHref ? { resource: resourceHref } : {}),
        },
        true,
      );
    },
    async exchangeRefreshToken(client, refreshToken, scopes) {
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.client !== client.client_id) throw new Error("invalid refresh token");
      refreshTokens.delete(refreshToken);
      return issue({ ...grant, scopes: scopes ?? grant.scopes }, true);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const grant = accessTokens.get(token);
      if (!grant || grant.expiresAt <= Date.now()) throw new InvalidTokenError("invalid or expired token");
      return {
        token,
        clientId: grant.client,
        scopes: grant.scopes,
        expiresAt: Math.floor(grant.expiresAt / 1000),
        ...(grant.resource ? { resource: new URL(grant.resource) } : {}),
      };
    },
  };

  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use((request, _response, next) => {
    const kind = kindOf(request.path);
    const record: OAuthTestRecord = {
      kind,
      path: request.path,
      query: Object.fromEntries(Object.entries(request.query).map(([key, value]) => [key, String(value)])),
      body: typeof request.body === "object" && request.body !== null ? { ...request.body } : {},
    };
    if (request.headers.authorization) record.authorization = request.headers.authorization;
    records.push(record);
    (request as Request & { record?: OAuthTestRecord }).record = record;
    next();
  });
  app.post(
    "/token",
    normalizeClientAuthentication(),
    clientCredentialsGrant({ clients, keys: options.clientJwtKeys ?? {}, issue, base }),
  );

  const scopes = options.scopesSupported;
  const methods = options.tokenEndpointAuthMethods ?? ["client_secret_basic", "client_secret_post", "none"];
  const overrideMetadata = (request: Request, response: Response, next: () => void): void => {
    const json = response.json.bind(response);
    // Read now: inside the SDK's mounted routers the path is relative to their mount point.
    const path = request.path;
    response.json = (body: unknown) => {
      if (path.startsWith("/.well-known/oauth-authorization-server")) {
        return json({
          ...(body as object),
          token_endpoint_auth_methods_supported: methods,
          grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
          ...(options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
          ...options.metadataOverrides,
        });
      }
      if (path.startsWith("/.well-known/oauth-protected-resource")) {
        return json({ ...(body as object), ...options.resourceMetadataOverrides });
      }
      return json(body);
    };
    next();
  };
  const { redirectMetadataTo } = options;
  if (redirectMetadataTo) {
    app.get(/^\/\.well-known\/(oauth-authorization-server|openid-configuration)/, (_request, response) => {
      response.redirect(302, redirectMetadataTo);
    });
  }
  app.use(overrideMetadata);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: new URL(`${base}/mcp`),
      ...(scopes ? { scopesSupported: scopes } : {}),
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );
  app.use(
    "/mcp",
    protectedMcpRoute({
      verifier: provider,
      resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
      requiredScopes: options.requiredScopes ?? [],
      toolScopes: options.toolScopes ?? {},
    }),
  );

  return {
    url: `${base}/mcp`,
    issuer: `${base}/`,
    records,
    issuedAccessTokens: () => [...issued],
    expireAccessTokens: () => {
      for (const grant of accessTokens.values()) grant.expiresAt = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function kindOf(path: string): OAuthTestRecord["kind"] {
  if (path.startsWith("/.well-known/")) return "metadata";
  if (path === "/register") return "register";
  if (path === "/authorize") return "authorize";
  if (path === "/token") return "token";
  return "mcp";
}
