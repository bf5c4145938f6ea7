import { messageOf } from "@agent/base";
import { closeBoundAround, type McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import { since } from "./time.js";

/** The close bound assumed for a transport that states none (`McpTransport.closeTimeoutMs`). */
export const UNSTATED_TRANSPORT_CLOSE_MS = 5_000;

/**
 * How long a connection waits for its transport to close: `closeMs` when the caller set one, else
 * the transport's own bound plus the margin of one layer ({@link closeBoundAround}), so that the
 * transport's own escalation (for stdio: stdin, SIGTERM, SIGKILL) always finishes first.
 */
export function closeDeadlineMs(
  closeMs: number | undefined,
  transport: Pick<McpTransport, "closeTimeoutMs"> = {},
): number {
  return closeMs ?? closeBoundAround(transport.closeTimeoutMs ?? UNSTATED_TRANSPORT_CLOSE_MS);
}

/**
 * Closes a transport within `closeMs` (unset: {@link closeDeadlineMs}) and reports the result as an
 * event (`mcp_closed` or `mcp_close_failed`, also when the transport itself reports `close_failed`,
 * e.g. a server that survived SIGKILL). It never throws: a failure to close must not reach an
 * exiting caller.
 */
export async function closeTransportWithin(
  transport: McpTransport,
  closeMs: number | undefined,
  events: EventSink,
  server: string,
): Promise<void> {
  const limitMs = closeDeadlineMs(closeMs, transport);
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
