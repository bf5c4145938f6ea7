import { describe, expect, it } from "vitest";
import { sameIssuer } from "../src/oauth/metadata-guard.js";
import { never } from "./helpers.js";
import { createOAuthWorld } from "./oauth-world.js";
import { connectToWorld } from "./oauth-world-client.js";

describe("re-authorization", () => {
  it("registers again with the authorization server the resource moved to, and keeps only its credentials (SEP-2352)", async () => {
    const world = createOAuthWorld({ requiredScope: "mcp:basic" });
    const [first, second] = world.issuers;
    const { store, transport } = await connectToWorld(world);
    expect((await transport.request("tools/list", {}, never())).ok).toBe(true);
    const before = await store.load("secure");
    const firstClientId = before?.client?.client_id;
    expect(firstClientId).toMatch(/^client_of_as-one/);

    world.moveAuthorizationServer();
    expect((await transport.request("tools/list", {}, never())).ok).toBe(true);

    expect(world.requestsTo(second, "/register")).toHaveLength(1);
    const atSecond = world.requests.filter((request) => request.url.origin === second);
    // Neither the old client id nor the old tokens are ever shown to the new authorization server.
    for (const request of atSecond) {
      expect(request.url.searchParams.get("client_id")).not.toBe(firstClientId);
      expect(request.body.client_id).not.toBe(firstClientId);
      expect(request.body.refresh_token).toBeUndefined();
    }
    expect(world.requestsTo(second, "/token")).toHaveLength(1);
    // The first one is not asked again: the protected resource no longer names it.
    expect(world.requestsTo(first, "/register")).toHaveLength(1);
    const after = await store.load("secure");
    expect(after?.client?.client_id).toMatch(/^client_of_as-two/);
    expect(sameIssuer(String(after?.client?.issuer), second)).toBe(true);
    expect(sameIssuer(String(after?.tokens?.issuer), second)).toBe(true);
  });

  it("steps up with the union of the scopes granted before and the challenged one (SEP-2350)", async () => {
    const world = createOAuthWorld({ requiredScope: "mcp:basic", callScope: "mcp:write" });
    const [issuer] = world.issuers;
    const { store, transport } = await connectToWorld(world);
    expect((await transport.request("tools/list", {}, never())).ok).toBe(true);
    const call = await transport.request("tools/call", { name: "write", arguments: {} }, never());
    expect(call.ok).toBe(true);

    const scopes = world
      .requestsTo(issuer, "/authorize")
      .map((request) => (request.url.searchParams.get("scope") ?? "").split(" ").sort());
    expect(scopes).toEqual([["mcp:basic"], ["mcp:basic", "mcp:write"]]);
    expect((await store.load("secure"))?.tokens?.scope?.split(" ").sort()).toEqual([
      "mcp:basic",
      "mcp:write",
    ]);
    // The wider grant still serves what the narrower one did.
    expect((await transport.request("tools/list", {}, never())).ok).toBe(true);
    expect(world.requestsTo(issuer, "/authorize")).toHaveLength(2);
  });

  it("asks for consent again when the union brings offline_access back", async () => {
    const world = createOAuthWorld({ requiredScope: "mcp:basic offline_access", callScope: "mcp:write" });
    const [issuer] = world.issuers;
    const { transport } = await connectToWorld(world);
    expect((await transport.request("tools/list", {}, never())).ok).toBe(true);
    expect((await transport.request("tools/call", { name: "write", arguments: {} }, never())).ok).toBe(true);
    const [, stepUp] = world.requestsTo(issuer, "/authorize");
    expect(stepUp?.url.searchParams.get("scope")?.split(" ").sort()).toEqual([
      "mcp:basic",
      "mcp:write",
      "offline_access",
    ]);
    expect(stepUp?.url.searchParams.get("prompt")).toBe("consent");
  });
});
