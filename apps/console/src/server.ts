import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  type AccessControl,
  type ConsoleSession,
  createAccessControl,
  readCookie,
  sessionCookieName,
} from "./access.js";
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from "./assets.js";
import { CONSOLE_ERROR_CODES, SECURITY_HEADERS, sendError, sendHtml } from "./http-io.js";
import { renderNotice } from "./layout.js";
import type { ConsolePorts } from "./ports.js";
import { type RouteContext, routeRequest } from "./routes.js";
import { createServersCache, type ServersCache } from "./servers-cache.js";

/** How long the servers page keeps a status before it asks the servers again, by default. */
const DEFAULT_SERVERS_TTL_MS = 60_000;

/** How to serve the console. */
export interface ConsoleServerOptions {
  ports: ConsolePorts;
  /** Who signs in with the login link (recorded by the composer with each decision). */
  operator: string;
  host: string;
  port: number;
  /** PEM certificate and key: serve HTTPS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** How often live pages look for changes in the stores, in milliseconds. */
  pollIntervalMs?: number;
  /** How long the servers' status is kept before a view asks the servers again (default 60 s). */
  serversTtlMs?: number;
}

/** A listening console. */
export interface ConsoleServer {
  /** The origin it answers on (`http://127.0.0.1:PORT`). */
  readonly origin: string;
  /** The one-time login link: open it once; a second use is refused. */
  readonly loginUrl: string;
  /** Stops listening and ends open streams. */
  close(): Promise<void>;
}

/** Starts the console on `options.host:options.port` (0 picks a free port). */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const access = createAccessControl(options.operator);
  const secure = options.tls !== undefined;
  const streams = new AbortController();
  const servers = createServersCache(options.ports.servers, {
    ttlMs: options.serversTtlMs ?? DEFAULT_SERVERS_TTL_MS,
    signal: streams.signal,
  });
  let origin = "";
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    handleRequest(request, response, {
      options,
      access,
      secure,
      origin,
      servers,
      closing: streams.signal,
    }).catch(() => {
      if (!response.headersSent) sendError(response, 500, "internal_error", "The console failed to answer.");
      else response.end();
    });
  };
  const server: Server = secure ? createHttpsServer(options.tls ?? {}, handler) : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostPart = options.host.includes(":") ? `[${options.host}]` : options.host;
  origin = `${secure ? "https" : "http"}://${hostPart}:${port}`;
  return {
    origin,
    loginUrl: `${origin}/login?token=${access.loginToken}`,
    close: () =>
      new Promise((resolve) => {
        streams.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ServerScope {
  options: ConsoleServerOptions;
  access: AccessControl;
  secure: boolean;
  origin: string;
  servers: ServersCache;
  closing: AbortSignal;
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  scope: ServerScope,
): Promise<void> {
  const url = new URL(request.url ?? "/", scope.origin);
  // DNS rebinding: a page of another site whose name resolves here sends its own name as Host.
  if (request.headers.host !== new URL(scope.origin).host) {
    return sendError(
      response,
      421,
      CONSOLE_ERROR_CODES.hostNotAllowed,
      `This console answers only as ${new URL(scope.origin).host}.`,
    );
  }
  const method = request.method ?? "GET";
  const changesState = method !== "GET" && method !== "HEAD";
  if (changesState && !isSameOrigin(request, scope.origin)) {
    return sendError(
      response,
      403,
      CONSOLE_ERROR_CODES.crossOrigin,
      "Refused: the request does not come from this console's own pages.",
    );
  }
  if (url.pathname === "/console.js" || url.pathname === "/console.css") {
    const isScript = url.pathname.endsWith(".js");
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      "content-type": isScript ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
    });
    response.end(isScript ? CONSOLE_SCRIPT : CONSOLE_STYLE);
    return;
  }
  if (url.pathname === "/favicon.ico") {
    response.writeHead(204, SECURITY_HEADERS);
    response.end();
    return;
  }
  const cookieName = sessionCookieName(scope.secure);
  if (url.pathname === "/login" && method === "GET") {
    const redeemed = scope.access.redeem(url.searchParams.get("token") ?? "");
    if (!redeemed) {
      return sendHtml(
        response,
        403,
        renderNotice(
          "Login link refused",
          "This login link was used already or is not this console's. Each link opens one session; restart agent serve for a new one.",
        ),
      );
    }
    const attributes = `Path=/; HttpOnly; SameSite=Strict${scope.secure ? "; Secure" : ""}`;
    response.writeHead(303, {
      ...SECURITY_HEADERS,
      "set-cookie": `${cookieName}=${redeemed.sessionId}; ${attributes}`,
      location: "/approvals",
    });
    response.end();
    return;
  }
  const session = scope.access.session(readCookie(request.headers.cookie, cookieName));
  if (!session) {
    if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/events/")) {
      return sendError(
        response,
        401,
        CONSOLE_ERROR_CODES.notLoggedIn,
        "Not logged in: open the login link agent serve printed.",
      );
    }
    return sendHtml(
      response,
      401,
      renderNotice("Not logged in", "Open the one-time login link that agent serve printed when it started."),
    );
  }
  const context: RouteContext = {
    request,
    response,
    url,
    method,
    session,
    ports: scope.options.ports,
    servers: scope.servers,
    pollIntervalMs: scope.options.pollIntervalMs ?? 500,
    closing: scope.closing,
    isCsrfValid: (token) => scope.access.isCsrfTokenOf(session as ConsoleSession, token),
  };
  await routeRequest(context);
}

// A state-changing request must name this origin (browsers send Origin on every POST); a missing
// Origin is accepted only with Sec-Fetch-Site: same-origin.
function isSameOrigin(request: IncomingMessage, origin: string): boolean {
  const sent = request.headers.origin;
  if (sent !== undefined) return sent === origin;
  return request.headers["sec-fetch-site"] === "same-origin";
}
