import { safeLine } from "./io.js";

/** What a connection or its snapshot says about a server that is not ready. */
export interface ServerStatus {
  state: string;
  error?: { code: string; message: string } | undefined;
}

/** Why a server is not ready, for one line of human output: `code: message`, else its state; escaped to one line. */
export function describeServerFailure(server: ServerStatus): string {
  return safeLine(server.error ? `${server.error.code}: ${server.error.message}` : server.state);
}
