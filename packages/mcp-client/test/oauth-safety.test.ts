/**
 * What OAuth must refuse, asserted from outside: nothing reaches the endpoints hostile metadata
 * names, no authorization starts for a resource that is not the server, a token is never offered to
 * another server or URL, and a login that needs a user fails at once when nobody can be asked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryCredentialStore } from "@agent/mcp-transport/oauth";
import { afterEach, describe, expect, it } from "vitest";
import { recordsOf, setUpOAuthTests } from "./oauth-helpers.js";

const { connect, serve } = setUpOAuthTests();
const others: Server[] = [];
/** Another origin that records every request it gets. */
async function otherOrigin(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      hits.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""} ${body}`);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  others.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}
afterEach(async () => {
  for (const server of others.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
const of = recordsOf;

describe("hostile metadata is refused before anything is sent to it", () => {
  it.each([
    ["a javascript: authorization endpoint", { authorization_endpoint: "javascript:alert(1)" }],
    ["a file: token endpoint", { token_endpoint: "file:///etc/passwd" }],
    ["a plain-http endpoint off this machine", { registration_endpoint: "http://auth.example.com/register" }],
    ["an issuer that is not where the metadata came from", { issuer: "https://auth.example.com/" }],
  ])("%s", async (_label, metadataOverrides) => {
    const server = await serve({ metadataOverrides });
    const { connection } = await connect(server);
    // The SDK's own schema refuses javascript: (with a terse message); our checks refuse the rest.
    await expect(connection.start()).rejects.toThrow();
    expect(of(server, "register")).toEqual([]);
    expect(of(server, "authorize")).toEqual([]);
    expect(of(server, "token")).toEqual([]);
  });

  it("a configured issuer other than the one discovered", async () => {
    const server = await serve();
    const { connection } = await connect(server, { expectedIssuer: "https://login.example.com/" });
    await expect(connection.start()).rejects.toThrow(/not the configured issuer/);
    expect(of(server, "register")).toEqual([]);
  });

  it("a redirect of the metadata to another origin is not followed", async () => {
    const other = await otherOrigin();
    const server = await serve({ redirectMetadataTo: `${other.url}/.well-known/oauth-authorization-server` });
    const { connection } = await connect(server);
    await connection.start().catch(() => {});
    expect(other.hits).toEqual([]);
  });

  it("protected resource metadata naming another resource stops the flow (resource mismatch)", async () => {
    const server = await serve({ resourceMetadataOverrides: { resource: "https://evil.example.com/mcp" } });
    const { connection } = await connect(server);
    await expect(connection.start()).rejects.toThrow(/does not match/);
    expect(of(server, "authorize")).toEqual([]);
    expect(of(server, "token")).toEqual([]);
  });
});

describe("endpoints stay on the authorization server's origin", () => {
  const SECRET = "robot-secret-value";
  const robot = { client_id: "robot", client_secret: SECRET, redirect_uris: [] };
  const robotLogin = {
    grant: "client_credentials" as const,
    client: { clientId: "robot", clientSecret: SECRET },
    interactive: false,
  };
  /** Whether a hit carries the secret, as sent in a form body or an HTTP Basic header. */
  const carriesSecret = (hit: string): boolean =>
    hit.includes(SECRET) || hit.includes(Buffer.from(`robot:${SECRET}`).toString("base64"));

  // The other origin is another loopback port: as far as origins go, another host.
  it("token and registration endpoints on another origin are refused: nothing is posted there", async () => {
    const other = await otherOrigin();
    const server = await serve({
      metadataOverrides: {
        token_endpoint: `${other.url}/token`,
        registration_endpoint: `${other.url}/register`,
      },
    });
    const { connection } = await connect(server);
    await expect(connection.start()).rejects.toThrow(/not on its own origin .*endpointOrigins/);
    expect(other.hits).toEqual([]);
    expect(of(server, "register")).toEqual([]);
  });

  it("a pre-registered client secret never goes to a token endpoint on another origin", async () => {
    const other = await otherOrigin();
    const server = await serve({
      clients: [robot],
      metadataOverrides: { token_endpoint: `${other.url}/token` },
    });
    const { connection } = await connect(server, robotLogin);
    await expect(connection.start()).rejects.toThrow(/token_endpoint is on/);
    expect(other.hits).toEqual([]);
  });

  it("an origin the configuration lists is used (what the refusals above keep from happening)", async () => {
    const other = await otherOrigin();
    const server = await serve({
      clients: [robot],
      metadataOverrides: { token_endpoint: `${other.url}/token` },
    });
    const { connection } = await connect(server, { ...robotLogin, endpointOrigins: [other.url] });
    await connection.start().catch(() => {});
    expect(other.hits.filter(carriesSecret)).toHaveLength(1);
  });
});

describe("tokens stay with their server", () => {
  it("a token stored for one server name is never offered to another", async () => {
    const first = await serve();
    const second = await serve();
    const store = createMemoryCredentialStore();
    const a = await connect(first, { server: "first", store });
    await a.connection.start();
    const token = (await store.load("first"))?.tokens?.access_token ?? "";
    expect(token).not.toBe("");
    const b = await connect(second, { server: "second", store, interactive: false });
    await b.connection.start().catch(() => {});
    expect(second.records.some((record) => record.authorization?.includes(token))).toBe(false);
  });

  it("a token stored for a server's old URL is not offered to its new one", async () => {
    const old = await serve();
    const moved = await serve();
    const store = createMemoryCredentialStore();
    const a = await connect(old, { server: "notes", store });
    await a.connection.start();
    const token = (await store.load("notes"))?.tokens?.access_token ?? "";
    const b = await connect(moved, { server: "notes", store, interactive: false });
    await b.connection.start().catch(() => {});
    expect(moved.records.some((record) => record.authorization?.includes(token))).toBe(false);
  });

  it("a login that needs a user fails at once with the hint when nobody can be asked", async () => {
    const server = await serve();
    const { connection, provider } = await connect(server, {
      interactive: false,
      loginHint: "run `agent mcp login secure`",
    });
    await expect(connection.start()).rejects.toThrow("run `agent mcp login secure`");
    expect(provider.loginRequired).toBe(true);
    expect(of(server, "authorize")).toEqual([]);
  });
});
