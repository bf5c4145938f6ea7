import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import {
  closeBoundAround,
  createRedactingTransport,
  createRedactor,
  type McpTransport,
} from "@agent/mcp-transport";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { describe, expect, it } from "vitest";
import { closeDeadlineMs, UNSTATED_TRANSPORT_CLOSE_MS } from "../src/close-transport.js";
import { DEFAULT_SERVER_TIMEOUTS, resolveTimeouts } from "../src/connection-options.js";

describe("the connection's close deadline", () => {
  it("is derived from the transport's close bound unless the caller sets closeMs", async () => {
    expect(DEFAULT_SERVER_TIMEOUTS.closeMs).toBeUndefined();
    const { closeMs } = resolveTimeouts({});
    for (const inner of [600, 9_000]) {
      // Changing the innermost bound (the stdio process's kill sequence) moves every outer one.
      const transport = createStdioTransport({ command: process.execPath, closeTimeoutMs: inner });
      expect(closeDeadlineMs(closeMs, transport)).toBe(closeBoundAround(closeBoundAround(inner)));
      // Through the CLI's redacting wrapper just the same.
      const wrapped = createRedactingTransport(transport, createRedactor(["a-secret-value"]));
      expect(closeDeadlineMs(closeMs, wrapped)).toBe(closeBoundAround(closeBoundAround(inner)));
      // A caller's own closeMs is taken as it is.
      expect(closeDeadlineMs(resolveTimeouts({ closeMs: 150 }).closeMs, transport)).toBe(150);
      await transport.close();
    }
  });

  it("assumes a stated default for a transport that states no bound", () => {
    const transport: McpTransport = new FakeTransport(fakeServer({ tools: [] }));
    expect(transport.closeTimeoutMs).toBeUndefined();
    expect(closeDeadlineMs(undefined, transport)).toBe(closeBoundAround(UNSTATED_TRANSPORT_CLOSE_MS));
  });
});
