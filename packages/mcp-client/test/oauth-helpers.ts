/**
 * Connects the whole client (McpServerConnection over our Streamable HTTP transport, calls through
 * the policy gate) to the loopback OAuth test server, with the browser step played by fetching the
 * authorization URL and following its redirect to our real loopback listener.
 */

import {
  type OAuthTestServer,
  type OAuthTestServerOptions,
  startOAuthTestServer,
} from "@agent/mcp-testing/oauth";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import {
  createBrowserAuthorizer,
  createMemoryCredentialStore,
  createOAuthProvider,
  type OAuthCredentialStore,
  type OAuthProvider,
  type OAuthProviderOptions,
  startLoopbackRedirect,
} from "@agent/mcp-transport/oauth";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import { executeToolCall, type ToolCallOutcome, ToolRegistry } from "@agent/tools";
import { afterEach } from "vitest";
import { McpServerConnection } from "../src/index.js";
import { followRedirect } from "./conformance/follow-redirect.js";
import { ALLOW_EXTERNAL } from "./harness.js";

/** Starts loopback OAuth test servers and closes them all at once. */
export function createOAuthServers() {
  const servers: OAuthTestServer[] = [];
  return {
    async serve(options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
      const server = await startOAuthTestServer(options);
      servers.push(server);
      return server;
    },
    async closeAll(): Promise<void> {
      for (const server of servers.splice(0)) await server.close();
    },
  };
}

/** The requests of one kind the server recorded. */
export function recordsOf(server: OAuthTestServer, kind: string) {
  return server.records.filter((record) => record.kind === kind);
}

/** A connected (or failed) client and what it used. */
export interface OAuthClientSetup {
  connection: McpServerConnection;
  provider: OAuthProvider;
  store: OAuthCredentialStore;
  call(tool: string, input?: Record<string, unknown>): Promise<ToolCallOutcome>;
}

/** Tracks what the tests opened, so `closeAll` releases it. */
export function createOAuthClients() {
  const closers: (() => Promise<void>)[] = [];
  return {
    async connect(
      server: OAuthTestServer,
      options: Partial<OAuthProviderOptions> & { interactive?: boolean } = {},
    ): Promise<OAuthClientSetup> {
      const { interactive = true, ...overrides } = options;
      const redirect = await startLoopbackRedirect();
      closers.push(() => redirect.close());
      const name = overrides.server ?? "secure";
      const store = overrides.store ?? createMemoryCredentialStore();
      const provider = createOAuthProvider({
        server: name,
        url: server.url,
        store,
        redirectUrl: redirect.redirectUrl,
        ...(interactive
          ? {
              authorize: createBrowserAuthorizer({
                redirect,
                show: () => {},
                open: followRedirect,
                timeoutMs: 10_000,
              }),
            }
          : {}),
        ...overrides,
      });
      const registry = new ToolRegistry();
      const connection = new McpServerConnection({
        name,
        connect: () =>
          createStreamableHttpTransport({ url: overrides.url ?? server.url, authProvider: provider }),
        registry,
        timeouts: { initializeMs: 15_000, listToolsMs: 15_000, closeMs: 2_000 },
      });
      closers.push(() => connection.close());
      const gate = createPolicyGate({
        policy: definePolicy(ALLOW_EXTERNAL),
        approvals: new InMemoryApprovalStore(),
      });
      const call = (tool: string, input: Record<string, unknown> = {}) =>
        executeToolCall(
          { name: `mcp__${name}__${tool}`, input },
          { registry, gate, runId: "run_oauth", cwd: process.cwd(), timeoutMs: 15_000 },
        );
      return { connection, provider, store, call };
    },
    async closeAll(): Promise<void> {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}

/** The text of a successful observation's first content block. */
export function textOf(outcome: ToolCallOutcome): string {
  if (outcome.type !== "observation" || !outcome.ok)
    throw new Error(`call failed: ${JSON.stringify(outcome)}`);
  const [first] = (outcome.output as { content: { text?: string }[] }).content;
  return first?.text ?? "";
}

/** The clients and servers of one test file, all closed after each test. */
export function setUpOAuthTests() {
  const clients = createOAuthClients();
  const servers = createOAuthServers();
  afterEach(async () => {
    await clients.closeAll();
    await servers.closeAll();
  });
  return { connect: clients.connect, serve: servers.serve };
}
