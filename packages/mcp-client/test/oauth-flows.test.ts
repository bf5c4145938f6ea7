/**
 * OAuth against a real authorization server on loopback (the SDK's server-side auth on express, from
 * @agent/mcp-testing/oauth): discovery, each way of registering, PKCE verified by the server, scope
 * selection, step-up, refresh, each token endpoint auth method, client credentials. What the server
 * recorded is the evidence.
 */
import { generateKeyPairSync } from "node:crypto";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { recordsOf, setUpOAuthTests, textOf } from "./oauth-helpers.js";

const { connect, serve } = setUpOAuthTests();

const of = recordsOf;

describe("the authorization-code flow", () => {
  it("discovers, registers dynamically, authorizes with PKCE S256 and the resource, then calls a tool", async () => {
    const server = await serve();
    const { connection, call, store } = await connect(server);
    await connection.start();
    expect(connection.state).toBe("ready");
    expect(JSON.parse(textOf(await call("whoami")))).toMatchObject({ client: expect.any(String) });

    const paths = of(server, "metadata").map((record) => record.path);
    expect(paths).toContain("/.well-known/oauth-protected-resource/mcp");
    expect(paths).toContain("/.well-known/oauth-authorization-server");
    expect(of(server, "register")).toHaveLength(1);
    const [authorize] = of(server, "authorize");
    expect(authorize?.query).toMatchObject({
      response_type: "code",
      code_challenge_method: "S256",
      resource: server.url,
      redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/),
    });
    expect(authorize?.query.state).toMatch(/^[\w-]{20,}$/);
    const [exchange] = of(server, "token");
    expect(exchange?.body).toMatchObject({
      grant_type: "authorization_code",
      code_verifier: expect.any(String),
    });
    expect(exchange?.clientAuthentication).toBe("none");

    const stored = await store.load("secure");
    expect(stored?.url).toBe(server.url);
    expect(stored?.tokens?.issuer).toBe(server.issuer);
    expect(stored?.client?.issuer).toBe(server.issuer);
  });

  it("fails when the code verifier does not match the challenge: the server checks PKCE", async () => {
    const server = await serve();
    // The exchange's body is altered on its way out: the server must refuse it.
    const tamper: FetchLike = async (url, init) => {
      const body = init?.body instanceof URLSearchParams ? new URLSearchParams(init.body) : undefined;
      if (body?.get("grant_type") === "authorization_code") body.set("code_verifier", "x".repeat(64));
      return fetch(url, body ? { ...init, body } : init);
    };
    const { connection } = await connect(server, { fetch: tamper });
    await expect(connection.start()).rejects.toThrow();
    expect(of(server, "token").length).toBeGreaterThanOrEqual(1);
    expect(server.issuedAccessTokens()).toEqual([]);
  });

  it("uses a client ID metadata document where the server supports one, and registers nothing", async () => {
    const server = await serve({ clientIdMetadataDocuments: true });
    const { connection } = await connect(server, {
      clientMetadataUrl: "https://client.example/agent.json",
    });
    await connection.start();
    expect(of(server, "register")).toEqual([]);
    expect(of(server, "authorize")[0]?.query.client_id).toBe("https://client.example/agent.json");
  });

  it("uses pre-registered credentials where registration is off", async () => {
    const server = await serve({
      disableRegistration: true,
      clients: [
        { client_id: "pre", client_secret: "pre-secret-value", redirect_uris: ["http://127.0.0.1/callback"] },
      ],
    });
    const { connection } = await connect(server, {
      client: { clientId: "pre", clientSecret: "pre-secret-value" },
    });
    await connection.start();
    expect(of(server, "register")).toEqual([]);
    expect(of(server, "token")[0]?.clientAuthentication).toBe("basic");
  });

  it.each([
    ["client_secret_basic", "basic"],
    ["client_secret_post", "post"],
  ])(
    "authenticates at the token endpoint with %s when that is what the server supports",
    async (method, seen) => {
      const server = await serve({
        tokenEndpointAuthMethods: [method],
        clients: [
          {
            client_id: "app",
            client_secret: "app-secret-value",
            redirect_uris: ["http://127.0.0.1/callback"],
          },
        ],
      });
      const { connection } = await connect(server, {
        client: { clientId: "app", clientSecret: "app-secret-value" },
      });
      await connection.start();
      expect(of(server, "token").map((record) => record.clientAuthentication)).toEqual([seen]);
    },
  );
});

describe("scopes", () => {
  it("asks for the resource's scopes_supported when the challenge names none", async () => {
    const server = await serve({ scopesSupported: ["notes:read", "notes:write"] });
    const { connection } = await connect(server);
    await connection.start();
    expect(of(server, "authorize")[0]?.query.scope).toBe("notes:read notes:write");
  });

  it("falls back to the configured scopes, and omits scope when nothing names one", async () => {
    const configured = await serve();
    const first = await connect(configured, { scopes: ["profile"] });
    await first.connection.start();
    expect(of(configured, "authorize")[0]?.query.scope).toBe("profile");

    const bare = await serve();
    const second = await connect(bare, { server: "bare" });
    await second.connection.start();
    expect(of(bare, "authorize")[0]?.query).not.toHaveProperty("scope");
  });

  it("steps up: a 403 insufficient_scope re-authorizes with the wider scope and the call goes through", async () => {
    const server = await serve({
      scopesSupported: ["notes:read"],
      toolScopes: { "write-note": ["notes:write"] },
    });
    const { connection, call } = await connect(server);
    await connection.start();
    expect(textOf(await call("write-note", { text: "hi" }))).toBe("write-note done");
    const scopes = of(server, "authorize").map((record) => record.query.scope);
    expect(scopes).toEqual(["notes:read", "notes:read notes:write"]);
    // The refresh token cannot widen a grant: it is not even tried.
    expect(of(server, "token").map((record) => record.body.grant_type)).not.toContain("refresh_token");
  });
});

describe("refresh", () => {
  it("refreshes an expired access token with the refresh token, without the browser", async () => {
    const server = await serve();
    const { connection, call, store } = await connect(server);
    await connection.start();
    const before = (await store.load("secure"))?.tokens?.access_token;
    server.expireAccessTokens();
    expect(JSON.parse(textOf(await call("whoami")))).toHaveProperty("client");
    expect(of(server, "authorize")).toHaveLength(1);
    expect(of(server, "token").map((record) => record.body.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    const after = (await store.load("secure"))?.tokens?.access_token;
    expect(after).not.toBe(before);
  });
});

describe("client credentials", () => {
  it("gets a token with a client secret, no browser and no refresh token", async () => {
    const server = await serve({
      clients: [{ client_id: "robot", client_secret: "robot-secret-value", redirect_uris: [] }],
    });
    const { connection, call } = await connect(server, {
      grant: "client_credentials",
      client: { clientId: "robot", clientSecret: "robot-secret-value" },
      interactive: false,
    });
    await connection.start();
    expect(JSON.parse(textOf(await call("whoami")))).toMatchObject({ client: "robot" });
    expect(of(server, "authorize")).toEqual([]);
    expect(
      of(server, "token").map((record) => [record.body.grant_type, record.clientAuthentication]),
    ).toEqual([["client_credentials", "basic"]]);
  });

  it("gets a token with a private_key_jwt assertion the server verifies", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const server = await serve({
      tokenEndpointAuthMethods: ["private_key_jwt"],
      clients: [{ client_id: "signer", redirect_uris: [] }],
      clientJwtKeys: { signer: publicKey.export({ type: "spki", format: "pem" }).toString() },
    });
    const { connection, call } = await connect(server, {
      grant: "client_credentials",
      client: {
        clientId: "signer",
        tokenEndpointAuthMethod: "private_key_jwt",
        privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        signingAlgorithm: "ES256",
      },
      interactive: false,
    });
    await connection.start();
    expect(JSON.parse(textOf(await call("whoami")))).toMatchObject({ client: "signer" });
    expect(of(server, "token")[0]?.clientAuthentication).toBe("jwt");
  });
});
