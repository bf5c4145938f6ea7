/**
 * OAuth end to end: the built `agent` against a real authorization server and protected MCP server
 * on loopback (@agent/mcp-testing/oauth). Without a login the server fails at once with what to run;
 * `mcp login` opens the authorization URL through `$BROWSER` (a script here that plays the user:
 * it loads the URL and follows the redirect to the CLI's loopback listener); then `call`, expiry and
 * refresh, and `logout`. Tokens stay in a 0600 file and appear in no output and no audit record.
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type OAuthTestServer, startOAuthTestServer } from "@agent/mcp-testing/oauth";
import { afterEach, describe, expect } from "vitest";
import {
  AS_INVOKED,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

const servers: OAuthTestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A `$BROWSER` that loads the URL it is given and follows the redirect, as a user clicking "allow" would. */
function writeBrowser(sandbox: E2eSandbox): string {
  const path = join(sandbox.root, "browser.mjs");
  writeFileSync(
    path,
    `#!${process.execPath}
const [url] = process.argv.slice(2);
const response = await fetch(url, { redirect: "manual" });
const location = response.headers.get("location");
if (location) await (await fetch(new URL(location, url))).text();
`,
  );
  chmodSync(path, 0o755);
  return path;
}

interface ListedServer {
  name: string;
  status: string;
  auth: string | null;
  error: { code: string; message: string } | null;
}

async function listed(sandbox: E2eSandbox, env: Record<string, string> = {}): Promise<ListedServer> {
  const result = await sandbox.run(["mcp", "list", "--json"], { env });
  const { servers: entries } = parseSingleJson(result.stdout) as { servers: ListedServer[] };
  const [entry] = entries;
  if (!entry) throw new Error(`no server listed: ${result.stdout}${result.stderr}`);
  return entry;
}

describe("agent mcp login, call, refresh, logout", () => {
  test("the whole OAuth life of one server", { timeout: E2E_TIMEOUT_MS * 3 }, async ({ sandbox }) => {
    const server = await startOAuthTestServer({ scopesSupported: ["notes:read"] });
    servers.push(server);
    sandbox.writeConfig({
      mcpServers: { secure: { url: server.url } },
      policy: { rules: [{ tool: "mcp__secure__*", decision: "allow" }] },
    });
    const browser = writeBrowser(sandbox);

    // Before login: no terminal, so no hang — the server fails with what to run.
    const before = await listed(sandbox);
    expect(before).toMatchObject({ status: "failed", auth: "login required" });
    expect(before.error?.message).toContain(`run \`${AS_INVOKED} mcp login secure\``);
    const refused = await sandbox.run(["call", "mcp__secure__whoami", "--json"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain(`${AS_INVOKED} mcp login secure`);

    const login = await sandbox.run(["mcp", "login", "secure"], { env: { BROWSER: browser } });
    expect(login.stderr).toContain("/authorize?");
    expect(login.stdout).toContain("Logged in to secure");
    expect(login.code).toBe(0);

    const tokenFile = join(sandbox.stateDir, "oauth-tokens.secure.json");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const [firstToken] = server.issuedAccessTokens();
    expect(firstToken).toBeDefined();
    expect(readFileSync(tokenFile, "utf8")).toContain(firstToken);
    expect((await listed(sandbox)).auth).toBe("authorized");

    const call = await sandbox.run(["call", "mcp__secure__whoami", "--json"]);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("notes:read");
    // The server echoed the token it was sent: the redactor learned it when it was stored.
    expect(call.stdout).toContain('\\"token\\":\\"[redacted]\\"');

    // The access token expires; the next call refreshes it without a browser.
    server.expireAccessTokens();
    const again = await sandbox.run(["call", "mcp__secure__whoami", "--json"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('\\"token\\":\\"[redacted]\\"');
    const grants = server.records
      .filter((record) => record.kind === "token")
      .map((record) => record.body.grant_type);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
    expect(server.records.filter((record) => record.kind === "authorize")).toHaveLength(1);

    // No token ever reached an output, an error or the audit trail.
    const tokens = server.issuedAccessTokens();
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const audit = readFileSync(join(sandbox.stateDir, "audit.jsonl"), "utf8");
    for (const text of [
      login.stdout,
      login.stderr,
      call.stdout,
      call.stderr,
      again.stdout,
      again.stderr,
      audit,
    ]) {
      for (const token of tokens) expect(text).not.toContain(token);
    }

    const logout = await sandbox.run(["mcp", "logout", "secure"]);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain("Logged out of secure");
    expect(existsSync(tokenFile) ? readFileSync(tokenFile, "utf8") : "").not.toContain(tokens.at(-1));
    expect((await listed(sandbox)).auth).toBe("login required");
  });

  test("a server entry with an Authorization header does not use OAuth", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const server = await startOAuthTestServer();
    servers.push(server);
    sandbox.writeConfig({
      mcpServers: { secure: { url: server.url, headers: { Authorization: "Bearer static" } } },
    });
    const entry = await listed(sandbox);
    expect(entry.auth).toBe("none");
    expect(server.records.some((record) => record.kind === "metadata")).toBe(false);
    const login = await sandbox.run(["mcp", "login", "secure"]);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain("does not use OAuth");
  });
});
