import { createInterface } from "node:readline/promises";
import { McpServerConnection } from "@agent/mcp-client";
import {
  createBrowserAuthorizer,
  createOAuthProvider,
  type LoopbackRedirect,
  openInBrowser,
  startLoopbackRedirect,
} from "@agent/mcp-transport/oauth";
import { ToolRegistry } from "@agent/tools";
import type { HttpServerConfig } from "../config/index.js";
import { EXIT_CODES, type ExitCode, usageError } from "../exit-codes.js";
import type { ConfiguredRuntime } from "../runtime/configured-runtime.js";
import { providerOptions, serverAuthState, usesOAuth } from "../runtime/server-auth.js";
import { connectTransport } from "../runtime/server-connections.js";
import { serverIdentity } from "../runtime/server-identity.js";
import type { StateRuntime } from "../runtime/state-runtime.js";
import { agentCommand, type CliIo, safeText, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";

// A person may take a while in the browser; the handshake waits for them.
const LOGIN_WAIT_MS = 5 * 60_000;

/** What `mcp login` works with: the server's entry, where its tokens go, and the audit trail; no server is started but the one it logs in to. */
export type LoginDeps = Pick<
  ConfiguredRuntime,
  "config" | "credentials" | "identityKey" | "redactor" | "events"
>;

/**
 * `agent mcp login <server>`: connects to an HTTP server with a fresh OAuth authorization. The
 * authorization URL is opened in the browser (`$BROWSER <url>`, else the platform's opener) and
 * printed; the code comes back to a loopback listener, or as the redirect URL pasted on stdin. The
 * tokens land in the state directory; the server's registration is kept for the next login.
 */
export async function mcpLoginCommand(
  runtime: LoginDeps,
  io: CliIo,
  options: { server: string },
  signal: AbortSignal,
): Promise<ExitCode> {
  const server = oauthServer(runtime, options.server);
  const settings = providerOptions(server, runtime.credentials, agentCommand(io));
  let redirect: LoopbackRedirect | undefined;
  if (settings.grant !== "client_credentials") {
    const port = server.oauth ? server.oauth.redirectPort : undefined;
    redirect = await startLoopbackRedirect(port === undefined ? {} : { port });
    settings.redirectUrl = redirect.redirectUrl;
    settings.authorize = createBrowserAuthorizer({
      redirect,
      timeoutMs: LOGIN_WAIT_MS,
      open: (url) => openInBrowser(url, io.env),
      show: (message, url) => {
        writeLine(io.stderr, message);
        writeLine(io.stderr, `  ${safeText(url)}`);
        if (io.stdin.isTTY) writeLine(io.stderr, "Or paste the address the browser ended on here:");
      },
      ...(io.stdin.isTTY ? { readPasted: (stop: AbortSignal) => readLine(io, stop) } : {}),
    });
  }
  const provider = createOAuthProvider(settings);
  // A login is a fresh authorization: old tokens go, the client registration stays.
  await provider.invalidateCredentials?.("tokens");
  const connection = new McpServerConnection({
    name: server.name,
    // The same key every other command names this server by: the team's, when it shares one.
    identity: serverIdentity(server, runtime.identityKey()),
    connect: () => connectTransport(server, runtime.redactor, { authProvider: provider }),
    registry: new ToolRegistry(),
    events: runtime.events,
    timeouts: { initializeMs: LOGIN_WAIT_MS, listToolsMs: LOGIN_WAIT_MS },
  });
  try {
    await connection.start(signal).catch(() => {});
    if (connection.state !== "ready") {
      writeLine(
        io.stderr,
        `agent: could not log in to ${safeText(server.name)}: ${describeServerFailure(connection)}`,
      );
      return EXIT_CODES.failed;
    }
    const state = await serverAuthState(server, provider, runtime.credentials);
    writeLine(
      io.stdout,
      state === "authorized"
        ? `Logged in to ${safeText(server.name)}; its tokens are in the state directory.`
        : `Server ${safeText(server.name)} did not ask for authorization; nothing was stored.`,
    );
    return EXIT_CODES.ok;
  } finally {
    await connection.close();
    await redirect?.close();
  }
}

/** `agent mcp logout <server>`: forgets the server's stored tokens and client registration. */
export async function mcpLogoutCommand(
  runtime: Pick<StateRuntime, "credentials">,
  io: CliIo,
  options: { server: string },
): Promise<ExitCode> {
  const stored = await runtime.credentials.load(options.server);
  await runtime.credentials.remove(options.server);
  writeLine(
    io.stdout,
    stored
      ? `Logged out of ${safeText(options.server)}: its OAuth tokens are forgotten.`
      : `No OAuth tokens were stored for ${safeText(options.server)}.`,
  );
  return EXIT_CODES.ok;
}

function oauthServer(runtime: Pick<ConfiguredRuntime, "config">, name: string): HttpServerConfig {
  const server = runtime.config.servers.find((candidate) => candidate.name === name);
  if (!server) throw usageError(`No server named "${name}" is configured.`);
  if (server.type === "stdio")
    throw usageError(`Server "${name}" runs over stdio; only HTTP (and SSE) servers log in with OAuth.`);
  if (!usesOAuth(server)) {
    throw usageError(
      `Server "${name}" does not use OAuth ("oauth": false, or an Authorization header is configured).`,
    );
  }
  return server;
}

async function readLine(io: CliIo, signal: AbortSignal): Promise<string | undefined> {
  const prompt = createInterface({ input: io.stdin, terminal: false });
  try {
    return await prompt.question("", { signal });
  } catch {
    return undefined;
  } finally {
    prompt.close();
  }
}
