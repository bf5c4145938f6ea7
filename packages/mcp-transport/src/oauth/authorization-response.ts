// The authorization response's `iss` check (RFC 9207, MCP 2026-07-28 SEP-2468), the defence against
// a mix-up attack: a code that another authorization server issued never reaches this one's token
// endpoint. The comparison is simple string comparison, on purpose: no URL normalization (a trailing
// "/", case or default-port variant is another issuer), as RFC 9207 §2.4 requires.
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { escapeControlCharacters } from "../escape-control-characters.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";

/** What the authorization server's redirect brought back: the code, and the issuer it named (`iss`), if any. */
export interface AuthorizationResponse {
  code: string;
  /** The redirect's `iss` parameter (RFC 9207), exactly as it came (already URL-decoded). */
  iss?: string;
}

/** The authorization server an authorization request was sent to, as the response is checked against it. */
export interface RecordedIssuer {
  /** Its issuer identifier: the metadata's `issuer`, else the URL discovery used. */
  issuer: string;
  /** Whether its metadata promised `iss` in every authorization response. */
  issParameterSupported: boolean;
}

/** The issuer an authorization request built from `discovery` was sent to. */
export function recordedIssuer(discovery: OAuthDiscoveryState): RecordedIssuer {
  const metadata = discovery.authorizationServerMetadata as Record<string, unknown> | undefined;
  const issuer =
    typeof metadata?.issuer === "string" ? metadata.issuer : String(discovery.authorizationServerUrl);
  return { issuer, issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true };
}

/**
 * Throws `issuer_mismatch` unless the response may be redeemed: an `iss` that is present must equal
 * the recorded issuer exactly (advertised or not), and one that the metadata promised must be present.
 */
export function assertAuthorizationResponseIssuer(
  response: AuthorizationResponse,
  expected: RecordedIssuer,
): void {
  const { iss } = response;
  if (iss === undefined) {
    if (!expected.issParameterSupported) return;
    throw mismatch(
      `The authorization response carries no iss, though authorization server ${quote(expected.issuer)} promises one (RFC 9207)`,
    );
  }
  if (iss === expected.issuer) return;
  throw mismatch(
    `The authorization response names issuer ${quote(iss)}, but the request went to ${quote(expected.issuer)} (RFC 9207; compared exactly)`,
  );
}

function mismatch(reason: string): OAuthFlowError {
  return new OAuthFlowError(
    OAUTH_ERROR_CODES.issuerMismatch,
    `${reason}. It may come from another authorization server (a mix-up attack), so its code was not redeemed. Log in again; if this repeats, check the server's authorization server.`,
  );
}

/** A server-chosen value, quoted, bounded and with every control character escaped (it reaches a terminal). */
function quote(value: string): string {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return escapeControlCharacters(JSON.stringify(shown));
}
