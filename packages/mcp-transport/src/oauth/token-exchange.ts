// Enterprise-managed authorization (SEP-990, "cross-app access"): the enterprise IdP exchanges the
// user's identity token for an identity assertion grant (ID-JAG, RFC 8693 token exchange), which the
// MCP server's authorization server then takes as a JWT bearer grant (RFC 7523). The SDK 1.32 has no
// helper for the first step; the second is an ordinary token request it sends for us.
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { assertSafeEndpoint } from "./metadata-guard.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";

/** The grant type of the second step (RFC 7523). */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** Where and how to obtain an identity assertion grant from the enterprise IdP. */
export interface IdentityAssertionGrant {
  /** The IdP's token endpoint. */
  tokenEndpoint: string;
  /** This client's id at the IdP. */
  clientId: string;
  /** The IdP client's secret, if it has one (sent as client_secret_post). */
  clientSecret?: string;
  /** The user's identity token (an OpenID Connect ID token) from the IdP. */
  idToken: string;
}

/** Exchanges the identity token for an ID-JAG meant for `audience` (the authorization server) and `resource`. */
export async function exchangeForIdJag(
  grant: IdentityAssertionGrant,
  target: { audience: string; resource: string; scope: string | undefined },
  fetchFn: FetchLike = (url, init) => fetch(url, init),
): Promise<string> {
  const endpoint = assertSafeEndpoint(grant.tokenEndpoint, "the IdP token endpoint");
  const body = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    subject_token: grant.idToken,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    audience: target.audience,
    resource: target.resource,
    client_id: grant.clientId,
  });
  if (grant.clientSecret) body.set("client_secret", grant.clientSecret);
  if (target.scope) body.set("scope", target.scope);
  const response = await fetchFn(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
    redirect: "manual",
  });
  const payload = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const token = payload?.access_token;
  if (!response.ok || typeof token !== "string" || token === "") {
    const error = typeof payload?.error === "string" ? `: ${payload.error}` : "";
    throw new OAuthFlowError(
      OAUTH_ERROR_CODES.authorizationFailed,
      `The IdP refused the token exchange (HTTP ${response.status}${error}).`,
    );
  }
  return token;
}
