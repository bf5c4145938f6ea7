// The OAuth tokens and client registrations of HTTP servers: one file per server in the state
// directory (`oauth-tokens.<server>.json`), that only the user can read (0600, written whole to a
// private temporary file and renamed into place, so a reader never sees half a file). One file per
// server is what keeps two processes saving the tokens of two servers from losing either: neither
// rewrites the other's file. Each entry names the URL it belongs to, and tokens and registrations
// carry their authorization server's issuer (see @agent/mcp-transport/oauth). Files of earlier
// versions kept every server in one `oauth-tokens.json`; it is read, and split on the first write.
import { closeSync, constants, linkSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { OAuthCredentialStore, OAuthCredentials } from "@agent/mcp-transport/oauth";
import { ensureStateDirectory } from "./state-directory.js";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";
import { openRegularStateFile } from "./state-files.js";

/** The token file of earlier versions, every server in one file; read, and split on the first write. */
export const OAUTH_TOKENS_FILE = "oauth-tokens.json";

interface TokenFile {
  version: 1;
  servers: Record<string, OAuthCredentials>;
}

// Server names are [a-zA-Z0-9_-] (see @agent/mcp-client's names): safe as part of a file name.
const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;

/** The path of the earlier versions' one token file in `stateDir`. */
export function oauthTokensPath(stateDir: string): string {
  return join(stateDir, OAUTH_TOKENS_FILE);
}

/** The path of the token file of `server` in `stateDir`. */
export function oauthServerTokensPath(stateDir: string, server: string): string {
  if (!SERVER_NAME.test(server)) {
    throw new StateError(
      STATE_ERROR_CODES.unavailable,
      `OAuth tokens are kept by server name, and ${JSON.stringify(server)} is not one; server names may contain only [a-zA-Z0-9_-].`,
    );
  }
  return join(stateDir, `oauth-tokens.${server}.json`);
}

/** A credential store over the state directory's token files; every call reads or writes a file. */
export function createFileCredentialStore(stateDir: string): OAuthCredentialStore {
  const legacy = oauthTokensPath(stateDir);
  const fileOf = (server: string): string => oauthServerTokensPath(stateDir, server);
  // A server's own file, once written, is the truth; the old shared file only until then.
  const load = (server: string): OAuthCredentials | undefined => {
    const own = readJson(fileOf(server), "OAuth token file");
    if (own !== undefined) return credentialsOf(own, fileOf(server));
    return legacyServers(legacy)?.[server];
  };
  return {
    load: async (server) => load(server),
    save: async (server, credentials) => {
      ensureStateDirectory(stateDir);
      splitLegacyFile(stateDir, legacy);
      writePrivately(fileOf(server), `${JSON.stringify(credentials, null, 2)}\n`, { replace: true });
    },
    remove: async (server) => {
      splitLegacyFile(stateDir, legacy);
      rmSync(fileOf(server), { force: true });
    },
  };
}

/**
 * Moves the servers of the old shared file into files of their own, then removes it. A server whose
 * own file exists keeps it (it is newer); two processes splitting at once write the same files.
 */
function splitLegacyFile(stateDir: string, legacy: string): void {
  const servers = legacyServers(legacy);
  if (servers === undefined) return;
  for (const [server, credentials] of Object.entries(servers)) {
    if (!SERVER_NAME.test(server)) continue;
    writePrivately(oauthServerTokensPath(stateDir, server), `${JSON.stringify(credentials, null, 2)}\n`, {
      replace: false,
    });
  }
  rmSync(legacy, { force: true });
}

function legacyServers(legacy: string): Record<string, OAuthCredentials> | undefined {
  const parsed = readJson(legacy, "OAuth token file") as Partial<TokenFile> | undefined;
  if (parsed === undefined) return undefined;
  if (parsed.version === 1 && typeof parsed.servers === "object" && parsed.servers !== null) {
    return { ...parsed.servers };
  }
  throw notOurs(legacy);
}

function credentialsOf(value: unknown, file: string): OAuthCredentials {
  if (typeof value === "object" && value !== null && typeof (value as { url?: unknown }).url === "string") {
    return value as OAuthCredentials;
  }
  throw notOurs(file);
}

/** The parsed content of `file`, `undefined` when there is none. */
function readJson(file: string, what: string): unknown {
  let text: string;
  // Never through a symbolic link, never blocking on a FIFO (`state_not_regular`).
  const descriptor = openRegularStateFile(file, constants.O_RDONLY);
  if (descriptor === undefined) return undefined;
  try {
    text = readFileSync(descriptor, "utf8");
  } catch (cause) {
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot read the ${what} ${file}.`, {
      file,
      cause,
    });
  } finally {
    closeSync(descriptor);
  }
  try {
    return JSON.parse(text);
  } catch {
    // Reported by the caller's check; the message never quotes the file's content (it holds tokens).
    throw notOurs(file);
  }
}

function notOurs(file: string): StateError {
  return new StateError(
    STATE_ERROR_CODES.corrupt,
    `The OAuth token file ${file} is not one this agent wrote; it was left untouched. Move it away and log in again.`,
    { file },
  );
}

/**
 * Writes `content` to `file` through a new private temporary file: renamed over whatever is there
 * (`replace`), or linked only where nothing is yet (a split never overwrites a newer file).
 */
function writePrivately(file: string, content: string, options: { replace: boolean }): void {
  const temporary = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // A new 0600 file that nobody else could have opened or pre-created; the rename then replaces
    // whatever is at `file` (a link included) without following it.
    const descriptor = openRegularStateFile(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o600,
    );
    if (descriptor === undefined) throw new Error("not created");
    try {
      writeSync(descriptor, content);
    } finally {
      closeSync(descriptor);
    }
    if (options.replace) renameSync(temporary, file);
    else linkUnlessPresent(temporary, file);
  } catch (cause) {
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot write the OAuth token file ${file}.`, {
      file,
      cause,
    });
  } finally {
    rmSync(temporary, { force: true });
  }
}

function linkUnlessPresent(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}
