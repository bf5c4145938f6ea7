import { OAUTH_ERROR_CODES } from "@agent/mcp-transport/oauth";
import { describe, expect, it } from "vitest";
import { responseFromPastedRedirect } from "../src/oauth/loopback-redirect.js";
import { never } from "./helpers.js";
import { createOAuthWorld, type OAuthWorldOptions } from "./oauth-world.js";
import { connectToWorld } from "./oauth-world-client.js";

/** Logs in to a world configured with `options` through the first request, and reports what happened. */
async function logIn(options: OAuthWorldOptions) {
  const world = createOAuthWorld({ requiredScope: "mcp:basic", ...options });
  const { store, transport } = await connectToWorld(world);
  const response = await transport.request("tools/list", {}, never());
  const [issuer] = world.issuers;
  return {
    response,
    tokenRequests: world.requestsTo(issuer, "/token"),
    authorizationRequests: world.requestsTo(issuer, "/authorize"),
    stored: await store.load("secure"),
    issuer,
  };
}

describe("the authorization response's iss (RFC 9207)", () => {
  it("redeems the code when iss is the advertised issuer exactly", async () => {
    const outcome = await logIn({ issParameterSupported: true, iss: "issuer" });
    expect(outcome.response.ok).toBe(true);
    expect(outcome.tokenRequests).toHaveLength(1);
    expect(outcome.stored?.tokens?.access_token).toBeTruthy();
  });

  it("redeems the code when iss is neither advertised nor sent", async () => {
    const outcome = await logIn({ iss: "omit" });
    expect(outcome.response.ok).toBe(true);
    expect(outcome.tokenRequests).toHaveLength(1);
  });

  const refused: [string, OAuthWorldOptions][] = [
    ["iss is advertised but missing", { issParameterSupported: true, iss: "omit" }],
    ["iss names another issuer", { issParameterSupported: true, iss: { value: "https://evil.example.com" } }],
    ["iss is not advertised but names another issuer", { iss: { value: "https://evil.example.com" } }],
    // No normalization: the trailing-slash variant of the issuer is another string.
    [
      "iss is the issuer with a trailing slash",
      { issParameterSupported: true, iss: { value: "https://as-one.example/" } },
    ],
  ];
  it.each(refused)("refuses the response, and sends no token request, when %s", async (_case, options) => {
    const outcome = await logIn(options);
    expect(outcome.authorizationRequests).toHaveLength(1);
    expect(outcome.tokenRequests).toEqual([]);
    expect(outcome.stored?.tokens).toBeUndefined();
    expect(outcome.response).toMatchObject({
      ok: false,
      error: { data: { oauthError: OAUTH_ERROR_CODES.issuerMismatch } },
    });
    const message = outcome.response.ok ? "" : outcome.response.error.message;
    expect(message).toContain("RFC 9207");
    expect(message).toContain(JSON.stringify(outcome.issuer));
  });

  it("shows a hostile iss quoted, with its control characters escaped", async () => {
    const outcome = await logIn({ iss: { value: "https://evil.example\u001b[2J\u202e" } });
    expect(outcome.tokenRequests).toEqual([]);
    const message = outcome.response.ok ? "" : outcome.response.error.message;
    expect(message).toContain("evil.example");
    expect(message.includes("\u001b")).toBe(false);
    expect(message.includes("\u202e")).toBe(false);
  });

  it("reads iss from a pasted redirect URL as well as the code", () => {
    const pasted = "http://127.0.0.1:1/callback?code=abc&state=s1&iss=https%3A%2F%2Fas.example";
    expect(responseFromPastedRedirect(pasted, "s1")).toEqual({ code: "abc", iss: "https://as.example" });
    expect(responseFromPastedRedirect("http://127.0.0.1:1/callback?code=abc&state=s1", "s1")).toEqual({
      code: "abc",
    });
  });
});
