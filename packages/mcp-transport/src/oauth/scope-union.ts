// SEP-2350 (MCP 2026-07-28): a re-authorization asks for the union of the scopes asked for or granted
// before and the ones the server now challenges for, so a step-up for one operation does not cost
// the grant the others need.

/** The scopes of a space-separated `scope` value (RFC 6749 §3.3), empty for none. */
export function scopesOf(scope: string | null | undefined): string[] {
  return (scope ?? "").split(" ").filter((token) => token !== "");
}

/**
 * `authorizationUrl` with its `scope` widened by `previous` (the challenged scopes first, then the
 * earlier ones it lacked); the URL itself when nothing is added. Adding `offline_access` also asks
 * for consent, as the SDK does when it puts that scope in.
 */
export function withScopeUnion(authorizationUrl: URL, previous: Iterable<string>): URL {
  const requested = new Set(scopesOf(authorizationUrl.searchParams.get("scope")));
  const count = requested.size;
  for (const scope of previous) requested.add(scope);
  if (requested.size === count) return authorizationUrl;
  const widened = new URL(authorizationUrl);
  widened.searchParams.set("scope", [...requested].join(" "));
  if (requested.has("offline_access") && !widened.searchParams.has("prompt")) {
    widened.searchParams.set("prompt", "consent");
  }
  return widened;
}
