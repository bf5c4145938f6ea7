import { error, FakeTransport, fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { type PhaseRun, runHandshakePhase, runListingPhase } from "../src/connection-phases.js";
import { DEFAULT_CLIENT_INFO } from "../src/handshake.js";

const hang = () => new Promise<never>(() => {});

function phaseRun(transport: FakeTransport, timeoutMs = 5_000, signal?: AbortSignal) {
  const events = createMemoryEventSink();
  const run: PhaseRun = { server: "docs", transport, events, signal, timeoutMs };
  return { run, events };
}

describe("runHandshakePhase", () => {
  it("reports mcp_initialized with the version spoken and the server's name", async () => {
    const { run, events } = phaseRun(new FakeTransport(fakeServer({ protocolVersion: "2025-06-18" })));
    const result = await runHandshakePhase(run, DEFAULT_CLIENT_INFO, {});
    expect(result.protocolVersion).toBe("2025-06-18");
    expect(events.ofType("mcp_initialized")).toMatchObject([
      { server: "docs", protocolVersion: "2025-06-18", serverName: "fake-server" },
    ]);
  });

  it("reports the stateless protocol's version where the transport chose it", async () => {
    const { run, events } = phaseRun(new FakeTransport(fakeServer()));
    await runHandshakePhase(run, DEFAULT_CLIENT_INFO, {}, () => ({
      era: "stateless",
      protocolVersion: "2026-07-28",
    }));
    expect(events.ofType("mcp_initialized")[0]?.protocolVersion).toBe("2026-07-28");
  });

  it("reports and throws a failed handshake as the server's error, with its code", async () => {
    const { run, events } = phaseRun(new FakeTransport({ initialize: () => error(-32603, "boom") }));
    const failure = runHandshakePhase(run, DEFAULT_CLIENT_INFO, {});
    await expect(failure).rejects.toMatchObject({ code: "mcp_initialize_failed", server: "docs" });
    expect(events.ofType("mcp_initialize_failed")).toMatchObject([
      { server: "docs", code: "mcp_initialize_failed", message: "initialize failed (-32603): boom" },
    ]);
    expect(events.ofType("mcp_initialized")).toEqual([]);
  });

  it("ends a handshake that outlives its deadline, tells the server, and says it timed out", async () => {
    const transport = new FakeTransport({ initialize: hang });
    const { run, events } = phaseRun(transport, 20);
    await expect(runHandshakePhase(run, DEFAULT_CLIENT_INFO, {})).rejects.toMatchObject({
      code: "mcp_initialize_failed",
      message: "initialize timed out after 20 ms.",
    });
    expect(transport.cancelledRequestIds).toHaveLength(1);
    expect(events.ofType("mcp_initialize_failed")[0]?.message).toBe("initialize timed out after 20 ms.");
  });

  it("does not call the caller's abort a time-out", async () => {
    const caller = new AbortController();
    const { run } = phaseRun(new FakeTransport({ initialize: hang }), 60_000, caller.signal);
    const failure = runHandshakePhase(run, DEFAULT_CLIENT_INFO, {});
    caller.abort();
    await expect(failure).rejects.toMatchObject({ code: "mcp_initialize_failed" });
    await expect(failure).rejects.not.toThrow(/timed out/);
  });
});

describe("runListingPhase", () => {
  it("lists the server's tools", async () => {
    const { run } = phaseRun(new FakeTransport(fakeServer({ tools: ["search", "read"] })));
    const listing = await runListingPhase(run, {});
    expect(listing.tools.map((tool) => [tool.server, tool.remoteName])).toEqual([
      ["docs", "search"],
      ["docs", "read"],
    ]);
  });

  it("bounds every page together, and names tools/list when the deadline ends it", async () => {
    const transport = new FakeTransport({ initialize: () => ok(initializeResult()), "tools/list": hang });
    const { run } = phaseRun(transport, 20);
    await expect(runListingPhase(run, {})).rejects.toMatchObject({
      code: "mcp_tools_list_failed",
      message: "tools/list timed out after 20 ms.",
      server: "docs",
    });
  });

  it("passes a listing's own failure on as it is", async () => {
    const { run } = phaseRun(new FakeTransport({ "tools/list": () => error(-32603, "no tools today") }));
    await expect(runListingPhase(run, {})).rejects.toMatchObject({ code: "mcp_tools_list_failed" });
    await expect(runListingPhase(run, {})).rejects.not.toThrow(/timed out/);
  });
});
