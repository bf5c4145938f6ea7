import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The cookie that carries a session; `__Host-` (secure origins only) keeps it on this exact origin. */
export function sessionCookieName(secure: boolean): string {
  return secure ? "__Host-agent-console" : "agent-console";
}

/** One operator's session: who they are (for the record of decisions) and the CSRF token their forms carry. */
export interface ConsoleSession {
  operator: string;
  csrfToken: string;
}

/**
 * The console's access state, owned by one server: the one-time login token (a hash of it: the
 * token itself is only ever printed), and the sessions it has been exchanged for.
 */
export interface AccessControl {
  /** The token of the login link, to print once. */
  readonly loginToken: string;
  /** Exchanges the login token for a session id; a second use (a replayed link) answers undefined. */
  redeem(token: string): { sessionId: string; session: ConsoleSession } | undefined;
  /** The session of a cookie value, if it is one. */
  session(sessionId: string | undefined): ConsoleSession | undefined;
  /** Whether `token` is the CSRF token of `session`. */
  isCsrfTokenOf(session: ConsoleSession, token: string | undefined): boolean;
}

/** Creates the access state of one console: a fresh login token, no sessions yet. */
export function createAccessControl(operator: string): AccessControl {
  const loginToken = randomToken();
  let loginDigest: Buffer | undefined = digest(loginToken);
  const sessions = new Map<string, ConsoleSession>();
  return {
    loginToken,
    redeem(token) {
      if (loginDigest === undefined || !sameBytes(digest(token), loginDigest)) return undefined;
      // Used once: the link printed at start opens one browser, and a copy of it opens nothing.
      loginDigest = undefined;
      const sessionId = randomToken();
      const session = { operator, csrfToken: randomToken() };
      sessions.set(digest(sessionId).toString("hex"), session);
      return { sessionId, session };
    },
    session(sessionId) {
      return sessionId === undefined ? undefined : sessions.get(digest(sessionId).toString("hex"));
    },
    isCsrfTokenOf(session, token) {
      return token !== undefined && sameBytes(digest(token), digest(session.csrfToken));
    },
  };
}

function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}
