import { FakeTransport } from "@agent/mcp-testing";
import { McpTransportError } from "@agent/mcp-transport";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { closeTransportWithin } from "../src/close-transport.js";

/** Closes `transport` the way a connection does and returns the one event it reported. */
async function closeAndReport(transport: FakeTransport, closeMs?: number) {
  const events = createMemoryEventSink();
  await closeTransportWithin(transport, closeMs, events, "docs");
  expect(events.events).toHaveLength(1);
  return events.events[0];
}

describe("closeTransportWithin", () => {
  it("closes the transport and reports mcp_closed", async () => {
    const transport = new FakeTransport();
    expect(await closeAndReport(transport)).toMatchObject({ type: "mcp_closed", server: "docs" });
    expect(transport.closeCount).toBe(1);
  });

  it("reports a close that throws as mcp_close_failed, and does not throw itself", async () => {
    const transport = new FakeTransport({}, { closeError: new Error("stdin already gone") });
    expect(await closeAndReport(transport)).toMatchObject({
      type: "mcp_close_failed",
      server: "docs",
      message: "stdin already gone",
    });
  });

  it("gives up on a close that never finishes once its deadline has passed", async () => {
    const transport = new FakeTransport({}, { closeDelayMs: "never" });
    expect(await closeAndReport(transport, 1)).toMatchObject({
      type: "mcp_close_failed",
      message: "close did not finish within 1 ms",
    });
  });

  it("reports the transport's own close_failed (a server that survived the kill) as a failed close", async () => {
    const transport = new FakeTransport();
    const close = transport.close.bind(transport);
    transport.close = async () => {
      transport.reportError(new McpTransportError("close_failed", "process 42 survived SIGKILL"));
      await close();
    };
    expect(await closeAndReport(transport)).toMatchObject({
      type: "mcp_close_failed",
      message: "process 42 survived SIGKILL",
    });
  });
});
