import type { McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import { messageOf, since } from "./time.js";

/**
 * Closes a transport within `limitMs` and reports the result as an event (`mcp_closed` or
 * `mcp_close_failed`, also when the transport itself reports `close_failed`, e.g. a server that
 * survived SIGKILL). It never throws: a failure to close must not reach an exiting caller.
 */
export async function closeTransportWithin(
  transport: McpTransport,
  limitMs: number,
  events: EventSink,
  server: string,
): Promise<void> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reported: string | undefined;
  const unsubscribe = transport.onError?.((error) => {
    if (error.code === "close_failed") reported ??= error.message;
  });
  try {
    await Promise.race([
      transport.close(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`close did not finish within ${limitMs} ms`)), limitMs);
      }),
    ]);
    if (reported !== undefined) throw new Error(reported);
    emitEvent(events, { type: "mcp_closed", server, durationMs: since(started) });
  } catch (error) {
    emitEvent(events, {
      type: "mcp_close_failed",
      server,
      message: messageOf(error),
      durationMs: since(started),
    });
  } finally {
    clearTimeout(timer);
    unsubscribe?.();
  }
}
