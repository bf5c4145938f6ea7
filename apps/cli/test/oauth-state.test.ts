/**
 * The CLI's side of OAuth without a network: the `oauth` config key (validated, `${VAR}` expanded,
 * values never echoed) and the token file (0600, bound to the URL, a foreign file left untouched).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storedTokenState } from "@agent/mcp-transport/oauth";
import { afterEach, describe, expect, it } from "vitest";
import { readServerEntry } from "../src/config/server-config.js";
import {
  createFileCredentialStore,
  oauthServerTokensPath,
  oauthTokensPath,
  StateError,
} from "../src/state/index.js";

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "agent-oauth-"));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const context = { env: { SECRET: "s3cr3t-value-123" }, directory: "/tmp", workspaceRoot: "/tmp" };

describe("the oauth key of an HTTP server entry", () => {
  it("expands secrets and infers private_key_jwt from a key", () => {
    const result = readServerEntry(
      "corp",
      {
        url: "https://mcp.example.com/mcp",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a configuration reference.
        oauth: { grant: "client_credentials", clientId: "bot", privateKey: "${SECRET}", scopes: ["a", "b"] },
      },
      context,
    );
    expect(result.issues).toEqual([]);
    expect(result.server).toMatchObject({
      oauth: {
        grant: "client_credentials",
        clientId: "bot",
        privateKey: "s3cr3t-value-123",
        tokenEndpointAuthMethod: "private_key_jwt",
      },
    });
  });

  it.each([
    [{ grant: "client_credentials", clientId: "bot" }, "needs clientId and clientSecret"],
    [{ issuer: "http://login.example.com/" }, "must be an https URL"],
    [{ clientSecret: "x" }, "is needed with client credentials"],
    [{ scopes: ["two words"] }, "one token"],
    [{ redirectPort: 70000 }, "mcpServers.corp.oauth.redirectPort"],
  ])("refuses %j", (oauth, message) => {
    const result = readServerEntry("corp", { url: "https://mcp.example.com/mcp", oauth }, context);
    expect(result.server).toBeUndefined();
    expect(JSON.stringify(result.issues)).toContain(message);
  });

  it("refuses oauth next to an Authorization header, without echoing values", () => {
    const result = readServerEntry(
      "corp",
      {
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer s3cr3t-value-123" },
        oauth: { clientId: "x", clientSecret: "s3cr3t-value-123" },
      },
      context,
    );
    expect(result.server).toBeUndefined();
    expect(JSON.stringify(result.issues)).toContain("cannot be used with an Authorization header");
    expect(JSON.stringify(result.issues)).not.toContain("s3cr3t");
  });
});

describe("the token file", () => {
  it("is written 0600 and read back per server; removing one leaves the others", async () => {
    const stateDir = temporaryDirectory();
    const store = createFileCredentialStore(stateDir);
    const tokens = { access_token: "at-123456", token_type: "Bearer", expires_in: 60 };
    await store.save("a", { url: "https://a.example/mcp", tokens, savedAt: 1_000 });
    await store.save("b", { url: "https://b.example/mcp" });
    expect(statSync(oauthServerTokensPath(stateDir, "a")).mode & 0o777).toBe(0o600);
    expect(await store.load("a")).toMatchObject({ tokens });
    await store.remove("a");
    expect(await store.load("a")).toBeUndefined();
    expect(await store.load("b")).toEqual({ url: "https://b.example/mcp" });
  });

  it("reads the one file of earlier versions, and splits it into files of their own on the first write", async () => {
    const stateDir = temporaryDirectory();
    const servers = { a: { url: "https://a.example/mcp" }, b: { url: "https://b.example/mcp" } };
    writeFileSync(oauthTokensPath(stateDir), JSON.stringify({ version: 1, servers }), { mode: 0o600 });
    const store = createFileCredentialStore(stateDir);
    expect(await store.load("b")).toEqual(servers.b);
    await store.save("a", { url: "https://a.example/mcp", savedAt: 5 });
    expect(existsSync(oauthTokensPath(stateDir))).toBe(false);
    expect(await store.load("a")).toEqual({ url: "https://a.example/mcp", savedAt: 5 });
    expect(await store.load("b")).toEqual(servers.b);
    expect(statSync(oauthServerTokensPath(stateDir, "b")).mode & 0o777).toBe(0o600);
  });

  it("leaves a file it did not write untouched and says so", async () => {
    const stateDir = temporaryDirectory();
    writeFileSync(oauthTokensPath(stateDir), "not json at all", { mode: 0o600 });
    const store = createFileCredentialStore(stateDir);
    await expect(store.load("a")).rejects.toThrow(StateError);
    await expect(store.save("a", { url: "https://a.example/mcp" })).rejects.toThrow(/left untouched/);
    expect(readFileSync(oauthTokensPath(stateDir), "utf8")).toBe("not json at all");
  });

  it("reads as expired once the access token's lifetime passed, and as none for another URL", () => {
    const credentials = {
      url: "https://a.example/mcp",
      tokens: { access_token: "at-123456", token_type: "Bearer", expires_in: 60 },
      savedAt: 1_000,
    };
    expect(storedTokenState(credentials, "https://a.example/mcp", 30_000)).toBe("authorized");
    expect(storedTokenState(credentials, "https://a.example/mcp", 61_001)).toBe("expired");
    expect(storedTokenState(credentials, "https://b.example/mcp", 30_000)).toBe("none");
  });
});
