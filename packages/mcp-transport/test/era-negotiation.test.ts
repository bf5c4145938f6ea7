/**
 * The era negotiation behind the transport port: a server that offers 2026-07-28 in server/discover
 * gets the stateless protocol (no handshake, the _meta envelope on every request, the standard
 * headers derived from each body); any other server gets the handshake unchanged.
 */
import { describe, expect, it } from "vitest";
import { standardHeaders } from "../src/era/http-headers.js";
import { negotiateEra } from "../src/era/negotiate-era.js";
import { type McpResponse, type McpTransport, mcpFailure } from "../src/transport.js";

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
