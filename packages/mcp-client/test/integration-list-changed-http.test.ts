/**
 * A list change on a real handshake-era server (the official SDK 1.x, 2025-11-25) over Streamable
 * HTTP: the server announces it with `notifications/tools/list_changed` (no `ttlMs` there), the client
 * lists again, the new definition is served, and an approval granted for the old one no longer
 * matches. The stdio counterpart is the schema-change test of integration-misbehaving.test.ts; the
 * 2026-07-28 counterparts (ttlMs expiry) are in integration-ttl-rediscovery.test.ts.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readRecordFile, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import { createClientHarness, reapOrFail, temporaryDirectory, waitFor } from "./integration-helpers.js";

const V1_SERVER = fileURLToPath(new URL("./fixtures/sdk-v1-http-server.mjs", import.meta.url));

describe("a handshake-era server's list change over Streamable HTTP", () => {
  it("list_changed: the new definition is served and the old approval no longer matches", async () => {
    const records = join(temporaryDirectory(), "records.jsonl");
    const server = await startLoopbackHttpServer(V1_SERVER, [], {
      env: { MCP_TESTING_RECORD_FILE: records },
    });
    // `redeploy` is allowed; `lookup` is asked for (the default for external tools).
    const harness = createClientHarness(
      () => createStreamableHttpTransport({ url: server.url, closeTimeoutMs: 1_000 }),
      { name: "v1", allow: ["redeploy"] },
    );
    onTestFinished(async () => {
      await harness.connection.close();
      const tracked = server.processes();
      await server.kill();
      await reapOrFail(tracked);
    });
    await harness.connection.start();
    expect(harness.connection.snapshot()).toMatchObject({ protocolEra: "handshake" });
    const lookup = () => executeToolCall({ name: "mcp__v1__lookup", input: {} }, harness.env);
    const before = harness.registry.get("mcp__v1__lookup");
    expect(before?.description).toContain("v1");

    const held = await lookup();
    if (held.type !== "waiting") throw new Error("expected the call to be held for approval");
    await harness.approvals.grantApproval(held.requestId);

    expect(await executeToolCall({ name: "mcp__v1__redeploy", input: {} }, harness.env)).toMatchObject({
      ok: true,
    });
    await waitFor(
      () => harness.events.ofType("mcp_tools_changed").length > 0,
      undefined,
      "mcp_tools_changed",
    );
    await harness.connection.toolsSettled();
    const after = harness.registry.get("mcp__v1__lookup");
    expect(after?.description).toContain("v2");
    expect(after?.fingerprint).not.toBe(before?.fingerprint);
    expect(harness.events.ofType("mcp_tools_changed")).toEqual([
      expect.objectContaining({ server: "v1", changed: ["mcp__v1__lookup"] }),
    ]);

    const again = await lookup();
    if (again.type !== "waiting") throw new Error("expected the call to be held again");
    expect(again.requestId).not.toBe(held.requestId);
    expect(await harness.approvals.getApproval(held.requestId)).toMatchObject({ status: "voided" });
    await harness.approvals.grantApproval(again.requestId);
    expect(await lookup()).toMatchObject({ type: "observation", ok: true });
    expect(readRecordFile(records).filter((entry) => entry.event === "called")).toEqual([
      expect.objectContaining({ tool: "lookup", version: 2 }),
    ]);
  });
});
