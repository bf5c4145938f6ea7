// The OAuth tokens and client registrations of HTTP servers, in one file of the state directory that
// only the user can read (0600, written whole to a private temporary file and renamed into place, so
// a reader never sees half a file). Keyed by server name; each entry names the URL it belongs to, and
// tokens and registrations carry their authorization server's issuer (see @agent/mcp-transport/oauth).
import { closeSync, constants, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { OAuthCredentialStore, OAuthCredentials } from "@agent/mcp-transport/oauth";
import { ensureStateDirectory } from "./open-state-database.js";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";
import { openRegularStateFile } from "./state-files.js";

/** The token file inside the state directory. */
export const OAUTH_TOKENS_FILE = "oauth-tokens.json";

interface TokenFile {
  version: 1;
  servers: Record<string, OAuthCredentials>;
}

/** The path of the token file in `stateDir`. */
export function oauthTokensPath(stateDir: string): string {
  return join(stateDir, OAUTH_TOKENS_FILE);
}

/** A credential store over the state directory's token file; every call reads or writes the file. */
export function createFileCredentialStore(stateDir: string): OAuthCredentialStore {
  const file = oauthTokensPath(stateDir);
  const read = (): TokenFile => readTokenFile(file);
  const write = (content: TokenFile): void => {
    ensureStateDirectory(stateDir);
    writePrivately(file, `${JSON.stringify(content, null, 2)}\n`);
  };
  return {
    load: (server) => read().servers[server],
    save: (server, credentials) => {
      const content = read();
      content.servers[server] = credentials;
      write(content);
    },
    remove: (server) => {
      const content = read();
      if (!(server in content.servers)) return;
      delete content.servers[server];
      write(content);
    },
  };
}

function readTokenFile(file: string): TokenFile {
  let text: string;
  // Never through a symbolic link, never blocking on a FIFO (`state_not_regular`).
  const descriptor = openRegularStateFile(file, constants.O_RDONLY);
  if (descriptor === undefined) return { version: 1, servers: {} };
  try {
    text = readFileSync(descriptor, "utf8");
  } catch (cause) {
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot read the OAuth token file ${file}.`, {
      file,
      cause,
    });
  } finally {
    closeSync(descriptor);
  }
  try {
    const parsed = JSON.parse(text) as Partial<TokenFile>;
    if (parsed.version === 1 && typeof parsed.servers === "object" && parsed.servers !== null) {
      return { version: 1, servers: { ...parsed.servers } };
    }
  } catch {
    // Reported below; the message never quotes the file's content (it holds tokens).
  }
  throw new StateError(
    STATE_ERROR_CODES.corrupt,
    `The OAuth token file ${file} is not one this agent wrote; it was left untouched. Move it away and log in again.`,
    { file },
  );
}

function writePrivately(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
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
    renameSync(temporary, file);
  } catch (cause) {
    rmSync(temporary, { force: true });
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot write the OAuth token file ${file}.`, {
      file,
      cause,
    });
  }
}
