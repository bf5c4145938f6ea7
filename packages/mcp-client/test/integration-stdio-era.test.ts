/**
 * The era negotiated over stdio against a real handshake-era server (server-everything, SDK 1.x):
 * `server/discover` first (the server answers it with "method not found"), then the handshake on
 * the same child (nothing restarted), with no 2026-07-28 envelope on anything after. The 2026-07-28
 * side is in integration-sdk-v2.test.ts.
 */

import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { everythingStdio } from "./integration-helpers.js";

const ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion";

describe("a handshake-era server over stdio", () => {
  it("is probed with server/discover, then spoken to with the handshake on the same child", async () => {
    const harness = everythingStdio({ allow: ["echo"], recordWire: true });
    await harness.connection.start();
    expect(harness.connection.snapshot()).toMatchObject({ protocolEra: "handshake" });
    expect(harness.transport().era()).toEqual({ kind: "handshake" });
    expect(harness.transports).toHaveLength(1);
    const methods = harness.wire.map((message) => ("method" in message ? message.method : undefined));
    expect(methods.slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);

    expect(
      await executeToolCall({ name: "mcp__everything__echo", input: { message: "old era" } }, harness.env),
    ).toMatchObject({ type: "observation", ok: true });
    // Only the probe carried the envelope: the handshake-era exchange never sees a 2026 field.
    const enveloped = harness.wire.filter((message) => JSON.stringify(message).includes(ENVELOPE_KEY));
    expect(enveloped.map((message) => ("method" in message ? message.method : undefined))).toEqual([
      "server/discover",
    ]);
  });
});
