import {
  CLOSE_MARGIN_MS,
  closeBoundAround,
  createRedactingTransport,
  createRedactor,
} from "@agent/mcp-transport";
import { createSseTransport, createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { describe, expect, it } from "vitest";

// Nothing here connects or spawns: a transport states its close bound when it is made.
describe("close deadlines", () => {
  it("a stdio transport's close bound follows the process transport's closeTimeoutMs", async () => {
    for (const inner of [600, 9_000]) {
      const transport = createStdioTransport({ command: process.execPath, closeTimeoutMs: inner });
      expect(transport.closeTimeoutMs).toBe(closeBoundAround(inner));
      expect(transport.closeTimeoutMs).toBe(inner + CLOSE_MARGIN_MS);
      await transport.close();
    }
    // The default process bound (3000 ms) plus one margin.
    const transport = createStdioTransport({ command: process.execPath });
    expect(transport.closeTimeoutMs).toBe(closeBoundAround(3_000));
    await transport.close();
  });

  it("an HTTP transport's close bound follows its session-ending closeTimeoutMs", async () => {
    for (const create of [createStreamableHttpTransport, createSseTransport]) {
      // Small bounds: an SSE transport closed before it ever connected waits out its whole bound.
      for (const inner of [100, 300]) {
        const transport = create({ url: "http://127.0.0.1:9/mcp", closeTimeoutMs: inner });
        expect(transport.closeTimeoutMs).toBe(closeBoundAround(inner));
        await transport.close();
      }
    }
  });

  it("a redacting wrapper states the bound of what it wraps", async () => {
    const inner = createStdioTransport({ command: process.execPath, closeTimeoutMs: 1_234 });
    const wrapped = createRedactingTransport(inner, createRedactor(["a-secret-value"]));
    expect(wrapped).not.toBe(inner);
    expect(wrapped.closeTimeoutMs).toBe(closeBoundAround(1_234));
    await wrapped.close();
  });
});
