import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthorizationResponse } from "./authorization-response.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";

/** A loopback HTTP listener that receives the authorization server's redirect (RFC 8252 §7.3). */
export interface LoopbackRedirect {
  /** The redirect URI to register and send: `http://127.0.0.1:<port>/callback`. */
  readonly redirectUrl: string;
  /**
   * Resolves with the code (and `iss`, if sent) of the first redirect that carries `state`; a redirect
   * with any other state is answered 400 and ignored, so a stray or forged request cannot end the login.
   * Rejects with `authorization_failed` when the server redirects with an `error`, or on `signal`.
   */
  waitForResponse(state: string, signal?: AbortSignal): Promise<AuthorizationResponse>;
  /** Stops listening; idempotent. */
  close(): Promise<void>;
}

const CALLBACK_PATH = "/callback";

/** Starts listening on 127.0.0.1 (`port` 0, the default, lets the system choose). */
export async function startLoopbackRedirect(options: { port?: number } = {}): Promise<LoopbackRedirect> {
  const waiting = new Map<
    string,
    { resolve: (response: AuthorizationResponse) => void; reject: (error: Error) => void }
  >();
  const used = new Set<string>();
  const server = createServer((request, response) => handle(request, response));

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== CALLBACK_PATH) {
      answer(response, 404, "Not found.");
      return;
    }
    const state = url.searchParams.get("state") ?? "";
    const waiter = waiting.get(state);
    if (!waiter || used.has(state)) {
      answer(response, 400, "This authorization response does not belong to a login in progress.");
      return;
    }
    used.add(state);
    waiting.delete(state);
    let received: AuthorizationResponse;
    try {
      received = authorizationResponseOf(url.searchParams);
    } catch (error) {
      answer(response, 400, "The authorization did not complete. You can close this window.");
      waiter.reject(error as Error);
      return;
    }
    answer(response, 200, "Logged in. You can close this window and return to the terminal.");
    waiter.resolve(received);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    waitForResponse(state, signal) {
      return new Promise<AuthorizationResponse>((resolve, reject) => {
        const onAbort = (): void => {
          waiting.delete(state);
          reject(
            new OAuthFlowError(
              OAUTH_ERROR_CODES.authorizationFailed,
              "The login was cancelled or timed out.",
            ),
          );
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        const settle =
          <T>(done: (value: T) => void) =>
          (value: T): void => {
            signal?.removeEventListener("abort", onAbort);
            done(value);
          };
        waiting.set(state, { resolve: settle(resolve), reject: settle(reject) });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * Reads the authorization response from a redirect URL the user pasted (the browser ran on another
 * machine and could not reach our loopback listener); throws `authorization_failed` unless its
 * `state` is `state`.
 */
export function responseFromPastedRedirect(text: string, state: string): AuthorizationResponse {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new OAuthFlowError(
      OAUTH_ERROR_CODES.authorizationFailed,
      "That is not the URL the browser was sent to.",
    );
  }
  if (url.searchParams.get("state") !== state) {
    throw new OAuthFlowError(
      OAUTH_ERROR_CODES.authorizationFailed,
      "The pasted URL belongs to another login (state mismatch).",
    );
  }
  return authorizationResponseOf(url.searchParams);
}

/** The code and `iss` of a redirect's query; throws `authorization_failed` for an `error` or no code. */
function authorizationResponseOf(query: URLSearchParams): AuthorizationResponse {
  const code = query.get("code");
  const error = query.get("error");
  if (error || !code) {
    // The error code is a short token from the server; only its safe characters are kept.
    const reason = (error ?? "no code").replace(/[^\w.-]/g, "").slice(0, 64);
    throw new OAuthFlowError(
      OAUTH_ERROR_CODES.authorizationFailed,
      `The authorization server refused: ${reason}.`,
    );
  }
  const iss = query.get("iss");
  return iss === null ? { code } : { code, iss };
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  response.end(`${text}\n`);
}
