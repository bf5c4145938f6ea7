import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** What is kept for one server: its client registration and tokens, bound to the server's URL. */
export interface OAuthCredentials {
  /** The MCP server URL these belong to; they are never offered to any other URL. */
  url: string;
  /** The client registration (dynamic or a metadata-document id), stamped with its authorization server's `issuer`. */
  client?: OAuthClientInformationMixed;
  /** The tokens, stamped with the `issuer` of the authorization server that issued them. */
  tokens?: OAuthTokens;
  /** When the tokens were saved (ms since the epoch), so `expires_in` can be read later. */
  savedAt?: number;
}

/**
 * Where a provider keeps credentials, by server name. The CLI keeps them in its state directory
 * (a file only the user can read); {@link createMemoryCredentialStore} keeps them in memory. Every
 * member answers with a promise (issue 27: one shape to implement), even for a store that has the
 * answer at once.
 */
export interface OAuthCredentialStore {
  load(server: string): Promise<OAuthCredentials | undefined>;
  save(server: string, credentials: OAuthCredentials): Promise<void>;
  remove(server: string): Promise<void>;
}

/** A store that keeps credentials in this object only (tests, one-shot clients). */
export function createMemoryCredentialStore(): OAuthCredentialStore {
  const entries = new Map<string, OAuthCredentials>();
  return {
    load: async (server) => structuredClone(entries.get(server)),
    save: async (server, credentials) => {
      entries.set(server, structuredClone(credentials));
    },
    remove: async (server) => {
      entries.delete(server);
    },
  };
}

/** Where stored tokens stand: `none` (nothing stored), `authorized`, or `expired` (the access token's lifetime passed). */
export type StoredTokenState = "none" | "authorized" | "expired";

/** Reads the state of stored credentials for `url` at time `now` (credentials for another URL count as none). */
export function storedTokenState(
  credentials: OAuthCredentials | undefined,
  url: string,
  now: number = Date.now(),
): StoredTokenState {
  if (!credentials || credentials.url !== url || !credentials.tokens) return "none";
  const { expires_in: expiresIn } = credentials.tokens;
  if (expiresIn === undefined || credentials.savedAt === undefined) return "authorized";
  return credentials.savedAt + expiresIn * 1000 <= now ? "expired" : "authorized";
}
