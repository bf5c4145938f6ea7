/**
 * The era negotiation behind the transport port: a server that offers 2026-07-28 in server/discover
 * gets the stateless protocol (no handshake, the _meta envelope on every request, the standard
 * headers derived from each body); any other server gets the handshake unchanged.
 */
import { describe, expect, it } from "vitest";
import { standardHeaders } from "../src/era/http-headers.js";
import { negotiateEra } from "../src/era/negotiate-era.js";
import { MCP_ERROR_CODES, type McpResponse, type McpTransport, mcpFailure } from "../src/transport.js";

type Sent = { kind: "request" | "notify"; method: string; params: unknown };

/** A transport that records what it was sent and answers each method from `answers`. */
function recordingTransport(answers: Record<string, McpResponse[]>): {
  transport: McpTransport;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const transport: McpTransport = {
    async request(method, params) {
      sent.push({ kind: "request", method, params });
      return answers[method]?.shift() ?? { ok: true, result: {} };
    },
    async notify(method, params) {
      sent.push({ kind: "notify", method, params });
      return { ok: true };
    },
    onNotification: () => () => {},
    onClose: () => () => {},
    close: async () => {},
  };
  return { transport, sent };
}

const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: { elicitation: {} },
  clientInfo: { name: "agent", version: "1.0.0" },
};
const never = new AbortController().signal;

describe("negotiateEra", () => {
  it("speaks the stateless protocol to a server that offers 2026-07-28", async () => {
    const { transport, sent } = recordingTransport({
      "server/discover": [
        {
          ok: true,
          result: {
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {} },
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2" } },
          },
        },
      ],
    });
    const era = negotiateEra(transport);
    const initialized = await era.request("initialize", INITIALIZE, never);
    expect(initialized).toEqual({
      ok: true,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "modern", version: "2" },
      },
    });
    await era.notify("notifications/initialized");
    await era.request("tools/call", { name: "echo", arguments: {} }, never);
    expect(era.era()).toMatchObject({ kind: "stateless", protocolVersion: "2026-07-28" });
    expect(sent.map((entry) => entry.method)).toEqual(["server/discover", "tools/call"]);
    expect(sent[1]?.params).toEqual({
      name: "echo",
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": INITIALIZE.clientInfo,
        // The transport follows tasks itself, so it offers the tasks extension besides the client's own.
        "io.modelcontextprotocol/clientCapabilities": {
          ...INITIALIZE.capabilities,
          extensions: { "io.modelcontextprotocol/tasks": {} },
        },
      },
    });
  });

  it("asks once more when the server rejects the version but lists 2026-07-28 (-32022)", async () => {
    const { transport, sent } = recordingTransport({
      "server/discover": [
        mcpFailure(-32000, "the server answered HTTP 400", {
          httpStatus: 400,
          rpcError: {
            code: -32022,
            message: "Unsupported protocol version",
            data: { supported: ["2026-07-28"] },
          },
        }),
        { ok: true, result: { supportedVersions: ["2026-07-28"], capabilities: {} } },
      ],
    });
    const era = negotiateEra(transport);
    await era.request("initialize", INITIALIZE, never);
    expect(sent.map((entry) => entry.method)).toEqual(["server/discover", "server/discover"]);
    expect(era.era().kind).toBe("stateless");
  });

  it("falls back to the handshake, unchanged, when the server refuses server/discover", async () => {
    const { transport, sent } = recordingTransport({
      "server/discover": [mcpFailure(-32601, "Method not found")],
    });
    const era = negotiateEra(transport);
    await era.request("initialize", INITIALIZE, never);
    await era.notify("notifications/initialized");
    await era.request("tools/list", {}, never);
    expect(era.era()).toEqual({ kind: "handshake" });
    expect(sent).toEqual([
      { kind: "request", method: "server/discover", params: expect.anything() },
      { kind: "request", method: "initialize", params: INITIALIZE },
      { kind: "notify", method: "notifications/initialized", params: undefined },
      { kind: "request", method: "tools/list", params: {} },
    ]);
  });

  it("takes server requests exactly when the inner transport does, passing each handler on to it", () => {
    const { transport } = recordingTransport({});
    // A client asks onRequest whether to offer roots, elicitation and sampling at all.
    expect(negotiateEra(transport).onRequest).toBeUndefined();
    const registered: string[] = [];
    const taking: McpTransport & Required<Pick<McpTransport, "onRequest">> = {
      ...transport,
      onRequest: (method: string) => {
        registered.push(method);
        return () => registered.splice(registered.indexOf(method), 1);
      },
    };
    const remove = negotiateEra(taking).onRequest("roots/list", async () => ({ ok: true, result: {} }));
    expect(registered).toEqual(["roots/list"]);
    remove();
    expect(registered).toEqual([]);
  });

  it("reports a probe that got no answer as the connection's failure, without a handshake", async () => {
    const { transport, sent } = recordingTransport({
      "server/discover": [mcpFailure(-32000, "could not send the request: ECONNREFUSED")],
    });
    const era = negotiateEra(transport);
    const outcome = await era.request("initialize", INITIALIZE, never);
    expect(outcome).toMatchObject({
      ok: false,
      error: { message: "could not send the request: ECONNREFUSED" },
    });
    expect(sent.map((entry) => entry.method)).toEqual(["server/discover"]);
  });
});

describe("negotiateEra with silentProbeMs (stdio)", () => {
  /** A server that never answers the probe (it times out at the limit it was given) and answers initialize. */
  function silentOnDiscover() {
    const limits: { method: string; timeoutMs: number | undefined }[] = [];
    const transport: McpTransport = {
      async request(method, _params, context) {
        const timeoutMs = "signal" in context ? context.timeoutMs : undefined;
        limits.push({ method, timeoutMs });
        if (method === "server/discover") return mcpFailure(MCP_ERROR_CODES.timeout, "request timed out");
        return { ok: true, result: { protocolVersion: "2025-11-25", capabilities: {} } };
      },
      notify: async () => ({ ok: true }),
      onNotification: () => () => {},
      onClose: () => () => {},
      close: async () => {},
    };
    return { transport, limits };
  }

  it("takes a silent probe for an old server: the handshake follows within what is left of the limit", async () => {
    const { transport, limits } = silentOnDiscover();
    const era = negotiateEra(transport, { silentProbeMs: 5_000 });
    const outcome = await era.request("initialize", INITIALIZE, { signal: never, timeoutMs: 3_000 });
    expect(outcome).toMatchObject({ ok: true, result: { protocolVersion: "2025-11-25" } });
    expect(era.era()).toEqual({ kind: "handshake" });
    expect(limits.map((entry) => entry.method)).toEqual(["server/discover", "initialize"]);
    // Half the caller's limit for the probe, the rest (never more than the whole) for the handshake.
    expect(limits[0]?.timeoutMs).toBe(1_500);
    expect(limits[1]?.timeoutMs).toBeLessThanOrEqual(3_000);
    expect(limits[1]?.timeoutMs).toBeGreaterThan(0);
  });

  it("gives the probe silentProbeMs when the caller sets no limit, and the handshake no limit either", async () => {
    const { transport, limits } = silentOnDiscover();
    const era = negotiateEra(transport, { silentProbeMs: 5_000 });
    await era.request("initialize", INITIALIZE, never);
    expect(limits).toEqual([
      { method: "server/discover", timeoutMs: 5_000 },
      { method: "initialize", timeoutMs: undefined },
    ]);
  });

  it("does not take the caller's own cancellation for silence", async () => {
    const controller = new AbortController();
    const { transport, sent } = recordingTransport({
      "server/discover": [mcpFailure(MCP_ERROR_CODES.cancelled, "cancelled")],
    });
    controller.abort();
    const era = negotiateEra(transport, { silentProbeMs: 5_000 });
    const outcome = await era.request("initialize", INITIALIZE, controller.signal);
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    expect(sent.map((entry) => entry.method)).toEqual(["server/discover"]);
  });

  it("without it (HTTP), a silent probe fails the initialize it stands for", async () => {
    const { transport, limits } = silentOnDiscover();
    const outcome = await negotiateEra(transport).request("initialize", INITIALIZE, never);
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    expect(limits.map((entry) => entry.method)).toEqual(["server/discover"]);
  });
});

describe("standardHeaders", () => {
  const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
  it("derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from a stateless request", () => {
    expect(
      standardHeaders({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", _meta: envelope },
      }),
    ).toEqual({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add" });
  });
  it("base64-encodes a name that is not plain ASCII", () => {
    const headers = standardHeaders({
      method: "resources/read",
      params: { uri: "file:///é", _meta: envelope },
    });
    expect(headers["mcp-name"]).toBe(`=?base64?${Buffer.from("file:///é").toString("base64")}?=`);
  });
  it("adds nothing to a handshake-era message", () => {
    expect(standardHeaders({ method: "tools/call", params: { name: "add" } })).toEqual({});
  });
});
