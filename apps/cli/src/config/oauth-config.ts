import { isLoopbackUrl } from "@agent/mcp-transport/oauth";
import { z } from "zod";
import type { FieldPath } from "./config-issues.js";

/**
 * OAuth settings of one HTTP server entry (`mcpServers.<name>.oauth`). Without them a server that
 * answers 401 is authorized with the SDK's defaults: a client ID metadata document where offered,
 * else dynamic registration, and `agent mcp login <name>` in a browser. Secrets take `${VAR}`.
 */
export interface OAuthServerConfig {
  /** `authorization_code` (a user logs in with `agent mcp login`, the default) or `client_credentials` (a machine). */
  grant: "authorization_code" | "client_credentials";
  /** A client registered with the authorization server beforehand. */
  clientId?: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none" | "private_key_jwt";
  /** For `private_key_jwt`: a PKCS#8 PEM private key (e.g. `${MCP_KEY_PEM}`) and its algorithm (default RS256). */
  privateKey?: string;
  signingAlgorithm?: string;
  /** For `private_key_jwt`: a ready-made signed client assertion instead of a key. */
  clientAssertion?: string;
  /** An https URL serving this client's metadata document (SEP-991), used where the server supports it. */
  clientMetadataUrl?: string;
  /** Scopes to ask for when the server's challenge and metadata name none. */
  scopes?: string[];
  /** The only authorization server (issuer) to accept for this server. */
  issuer?: string;
  /** Origins besides the authorization server's own where its endpoints (token, registration, ...) may be. */
  endpointOrigins?: string[];
  /** A fixed port for the login's loopback redirect (`http://127.0.0.1:<port>/callback`), for clients registered with one. */
  redirectPort?: number;
}

/** The schema of `oauth` (or `false`: never use OAuth for this server). */
export const OAUTH_ENTRY_SCHEMA = z.union([
  z.literal(false),
  z.strictObject({
    grant: z.enum(["authorization_code", "client_credentials"]).optional(),
    clientId: z.string().min(1, { message: "may not be empty" }).optional(),
    clientSecret: z.string().optional(),
    tokenEndpointAuthMethod: z
      .enum(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"])
      .optional(),
    privateKey: z.string().optional(),
    signingAlgorithm: z
      .string()
      .regex(/^(RS|ES|PS)(256|384|512)$/, { message: "expected e.g. RS256 or ES256" })
      .optional(),
    clientAssertion: z.string().optional(),
    clientMetadataUrl: z.string().optional(),
    scopes: z
      .array(z.string().regex(/^[!#-[\]-~]+$/, { message: "a scope is one token without spaces" }))
      .optional(),
    issuer: z.string().optional(),
    endpointOrigins: z.array(z.string()).optional(),
    redirectPort: z.number().int().min(1).max(65_535).optional(),
  }),
]);

type OAuthEntry = Exclude<z.infer<typeof OAUTH_ENTRY_SCHEMA>, false>;

/** What reading `oauth` needs from the entry's reader: `${VAR}` expansion and recording problems. */
export interface OAuthFieldReader {
  expand(text: string, path: FieldPath, options?: { nonEmpty?: boolean }): string | undefined;
  reject(path: FieldPath, message: string): void;
}

const SECRET_FIELDS = ["clientId", "clientSecret", "privateKey", "clientAssertion"] as const;

/** Expands and checks one entry's `oauth` (issues name fields, never values). */
export function readOAuthConfig(
  entry: OAuthEntry,
  base: FieldPath,
  reader: OAuthFieldReader,
): OAuthServerConfig {
  const path = [...base, "oauth"];
  const config: OAuthServerConfig = { grant: entry.grant ?? "authorization_code" };
  for (const field of SECRET_FIELDS) {
    const value = entry[field];
    if (value !== undefined) {
      const expanded = reader.expand(value, [...path, field], { nonEmpty: true });
      if (expanded !== undefined) config[field] = expanded;
    }
  }
  if (entry.tokenEndpointAuthMethod) config.tokenEndpointAuthMethod = entry.tokenEndpointAuthMethod;
  if ((config.privateKey || config.clientAssertion) && !entry.tokenEndpointAuthMethod) {
    config.tokenEndpointAuthMethod = "private_key_jwt";
  }
  if (entry.signingAlgorithm) config.signingAlgorithm = entry.signingAlgorithm;
  if (entry.scopes) config.scopes = entry.scopes;
  if (entry.redirectPort !== undefined) config.redirectPort = entry.redirectPort;
  for (const field of ["clientMetadataUrl", "issuer"] as const) {
    const value = entry[field];
    if (value === undefined) continue;
    if (!isHttpsUrl(value)) reader.reject([...path, field], "must be an https URL");
    else config[field] = value;
  }
  if (entry.endpointOrigins) {
    const origins = entry.endpointOrigins.map((text, index) => {
      const origin = endpointOrigin(text);
      if (origin === undefined)
        reader.reject(
          [...path, "endpointOrigins", index],
          'must be an https origin such as "https://oauth2.example.com" (plain http only to this machine)',
        );
      return origin;
    });
    config.endpointOrigins = origins.filter((origin) => origin !== undefined);
  }
  const hasCredential = config.clientSecret || config.privateKey || config.clientAssertion;
  if (config.grant === "client_credentials" && (!config.clientId || !hasCredential)) {
    reader.reject(
      path,
      'the "client_credentials" grant needs clientId and clientSecret, privateKey or clientAssertion',
    );
  }
  if (!config.clientId && hasCredential)
    reader.reject([...path, "clientId"], "is needed with client credentials");
  if (config.tokenEndpointAuthMethod === "private_key_jwt" && !config.privateKey && !config.clientAssertion) {
    reader.reject(path, "private_key_jwt needs privateKey or clientAssertion");
  }
  return config;
}

/** The origin `text` names: an https origin, or plain http to this machine, with no path, query or credentials. */
function endpointOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const isOriginOnly = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
  const safe = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackUrl(url));
  return isOriginOnly && safe ? url.origin : undefined;
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === "https:";
  } catch {
    return false;
  }
}
