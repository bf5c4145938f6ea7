import type { ServerResponse } from "node:http";
import { SECURITY_HEADERS } from "./http-io.js";

/** Opens a server-sent events stream; the returned signal aborts when the client goes away. */
export function openEventStream(response: ServerResponse): {
  send(event: string, data: string): void;
  signal: AbortSignal;
} {
  const closed = new AbortController();
  // The response, not the request: a request "closes" once its (empty) body is read.
  response.on("close", () => closed.abort());
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    connection: "keep-alive",
  });
  response.write(": open\n\n");
  return {
    signal: closed.signal,
    send(event, data) {
      if (closed.signal.aborted) return;
      // One data line per line of `data`: a newline in a record cannot start another event.
      const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}`);
      response.write(`event: ${event}\n${lines.join("\n")}\n\n`);
    },
  };
}

/**
 * Sends `changed` whenever `version()` answers something new, checking every `intervalMs` until the
 * stream closes: the stores are shared by other processes (shells, other machines), which notify
 * nobody, so the console looks.
 */
export async function watchVersion(
  stream: { send(event: string, data: string): void; signal: AbortSignal },
  version: () => Promise<string>,
  intervalMs: number,
): Promise<void> {
  let last = await version();
  while (!stream.signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (stream.signal.aborted) return;
    let next: string;
    try {
      next = await version();
    } catch {
      continue;
    }
    if (next !== last) {
      last = next;
      stream.send("changed", next);
    }
  }
}
