/**
 * The world an OAuth client meets, played behind `fetch`: a protected MCP endpoint
 * (https://mcp.example/mcp), its protected resource metadata, and authorization servers with
 * metadata, dynamic registration, an authorization endpoint that approves at once (it redirects to
 * the client's redirect URI with the code, the state and the `iss` it is told to send) and a token
 * endpoint. Every request is recorded, so tests assert what went over the wire and what never did.
 * The redirect itself reaches the client's real loopback listener (see {@link OAuthWorld.open}).
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** What the authorization servers' redirects carry as `iss`: the issuer, nothing, or this exact text. */
export type IssInRedirect = "issuer" | "omit" | { value: string };

/** Options of {@link createOAuthWorld}. */
export interface OAuthWorldOptions {
  /** Advertise `authorization_response_iss_parameter_supported` in the metadata. */
  issParameterSupported?: boolean;
  /** What the authorization redirect carries as `iss` (default: the issuer). */
  iss?: IssInRedirect;
  /** The scope every MCP request needs, named in the 401 challenge. */
  requiredScope?: string;
  /** The extra scope `tools/call` needs, asked for with a 403 `insufficient_scope`. */
  callScope?: string;
}

/** One request the world saw. */
export interface WorldRequest {
  method: string;
  url: URL;
  /** The fields of a POST: a form's (token) or a JSON object's (registration, MCP). */
  body: Record<string, unknown>;
}

/** The running world. */
export interface OAuthWorld {
  readonly mcpUrl: string;
  /** The authorization servers' issuers; the protected resource names the current one. */
  readonly issuers: readonly [string, string];
  readonly requests: WorldRequest[];
  fetch: FetchLike;
  /** Plays the browser: loads the authorization URL and follows its redirect to the loopback listener. */
  open(url: string): Promise<boolean>;
  /** The protected resource moves to the second authorization server; tokens of the first stop working. */
  moveAuthorizationServer(): void;
  /** The requests to `path` on the authorization server `issuer`. */
  requestsTo(issuer: string, path: string): WorldRequest[];
}

const MCP_ORIGIN = "https://mcp.example";
const PRM_URL = `${MCP_ORIGIN}/.well-known/oauth-protected-resource/mcp`;

interface Grant {
  issuer: string;
  clientId: string;
  scopes: string[];
}

/** Creates a world with two authorization servers, the first one current. */
export function createOAuthWorld(options: OAuthWorldOptions = {}): OAuthWorld {
  const issuers = ["https://as-one.example", "https://as-two.example"] as const;
  let current: string = issuers[0];
  const requests: WorldRequest[] = [];
  const codes = new Map<string, Grant>();
  const accessTokens = new Map<string, Grant>();
  let counter = 0;
  const next = (prefix: string): string => `${prefix}_${++counter}`;

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

  const challenge = (status: 401 | 403, scope: string | undefined): Response => {
    const scopePart = scope ? `, scope="${scope}"` : "";
    const error = status === 403 ? `, error="insufficient_scope"` : "";
    return json(
      status,
      { error: status === 403 ? "insufficient_scope" : "invalid_token" },
      { "www-authenticate": `Bearer resource_metadata="${PRM_URL}"${scopePart}${error}` },
    );
  };

  function mcp(request: Request, body: { id?: unknown; method?: unknown }): Response {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    const grant = token === undefined ? undefined : accessTokens.get(token);
    if (!grant || grant.issuer !== current) return challenge(401, options.requiredScope);
    const { callScope } = options;
    if (body.method === "tools/call" && callScope && !grant.scopes.includes(callScope)) {
      return challenge(403, callScope);
    }
    return json(200, { jsonrpc: "2.0", id: body.id, result: { tools: [], content: [] } });
  }

  function authorizationServer(issuer: string, url: URL, body: Record<string, unknown>): Response {
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        ...(options.issParameterSupported ? { authorization_response_iss_parameter_supported: true } : {}),
      });
    }
    if (url.pathname === "/register") {
      return json(201, { ...body, client_id: next(`client_of_${new URL(issuer).hostname}`) });
    }
    if (url.pathname === "/authorize") {
      const code = next("code");
      const scopes = (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean);
      codes.set(code, { issuer, clientId: url.searchParams.get("client_id") ?? "", scopes });
      const target = new URL(url.searchParams.get("redirect_uri") ?? "");
      target.searchParams.set("code", code);
      target.searchParams.set("state", url.searchParams.get("state") ?? "");
      const iss = options.iss ?? "issuer";
      if (iss === "issuer") target.searchParams.set("iss", issuer);
      else if (iss !== "omit") target.searchParams.set("iss", iss.value);
      return new Response(null, { status: 302, headers: { location: target.href } });
    }
    if (url.pathname === "/token") {
      const code = String(body.code);
      const grant = codes.get(code);
      codes.delete(code);
      if (body.grant_type !== "authorization_code" || !grant || grant.clientId !== body.client_id) {
        return json(400, { error: "invalid_grant" });
      }
      const accessToken = next("access_token");
      accessTokens.set(accessToken, grant);
      return json(200, {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: 3600,
        scope: grant.scopes.join(" "),
      });
    }
    return json(404, { error: "not_found" });
  }

  const worldFetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = request.method === "POST" ? await request.text() : "";
    const body = parseBody(text, request.headers.get("content-type"));
    requests.push({ method: request.method, url, body });
    if (url.origin === MCP_ORIGIN) {
      if (url.href === PRM_URL) {
        return json(200, { resource: `${MCP_ORIGIN}/mcp`, authorization_servers: [current] });
      }
      if (url.pathname === "/mcp" && request.method === "POST") return mcp(request, body);
      return json(404, { error: "not_found" });
    }
    const issuer = issuers.find((candidate) => new URL(candidate).origin === url.origin);
    if (issuer) return authorizationServer(issuer, url, body);
    throw new TypeError(`fetch failed: no such host in this world (${url.origin})`);
  };

  return {
    mcpUrl: `${MCP_ORIGIN}/mcp`,
    issuers,
    requests,
    fetch: worldFetch,
    async open(url) {
      const response = await worldFetch(url, { redirect: "manual" });
      const location = response.headers.get("location");
      if (!location) return false;
      // The loopback listener is real: the redirect leaves the world.
      const callback = await fetch(location);
      await callback.body?.cancel();
      return true;
    },
    moveAuthorizationServer() {
      current = issuers[1];
    },
    requestsTo(issuer, path) {
      return requests.filter((request) => request.url.origin === issuer && request.url.pathname === path);
    },
  };
}

function parseBody(text: string, contentType: string | null): Record<string, unknown> {
  if (text === "") return {};
  if (contentType?.includes("application/json")) return JSON.parse(text) as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(text));
}
