/**
 * SEP-2243's custom headers: which `x-mcp-header` annotations are valid (an invalid one makes the
 * tool invalid), and how a call's argument values travel as `Mcp-Param-*` headers.
 */
import { describe, expect, it } from "vitest";
import { paramHeaders, standardHeaders } from "../src/era/http-headers.js";
import { negotiateEra } from "../src/era/negotiate-era.js";
import { MAX_PARAM_HEADER_BYTES, paramHeaderOverflow } from "../src/era/param-header-budget.js";
import { ToolHeaderIndex } from "../src/era/tool-header-index.js";
import { readToolParamHeaders } from "../src/era/tool-param-headers.js";
import { MCP_ERROR_CODES, type McpTransport } from "../src/transport.js";

const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
const base64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

function schema(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", properties };
}

describe("readToolParamHeaders", () => {
  it("reads each annotated parameter with the path to its value, nested objects included", () => {
    const read = readToolParamHeaders(
      schema({
        region: { type: "string", "x-mcp-header": "Region" },
        limits: {
          type: "object",
          properties: { priority: { type: ["integer", "null"], "x-mcp-header": "Priority" } },
        },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        query: { type: "string" },
      }),
    );
    expect(read).toEqual({
      ok: true,
      headers: [
        { name: "Region", path: ["region"], type: "string" },
        { name: "Priority", path: ["limits", "priority"], type: "integer" },
        { name: "Verbose", path: ["verbose"], type: "boolean" },
      ],
    });
  });

  it("treats a property that is merely named x-mcp-header, or a default holding one, as no annotation", () => {
    const read = readToolParamHeaders(
      schema({
        "x-mcp-header": { type: "string" },
        options: { type: "object", default: { "x-mcp-header": "Nope" } },
      }),
    );
    expect(read).toEqual({ ok: true, headers: [] });
  });

  // The invalid tools of the conformance scenario http-invalid-tool-headers, and the rule each breaks.
  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ["an empty name", schema({ value: { type: "string", "x-mcp-header": "" } }), /non-empty string/],
    ["an object", schema({ data: { type: "object", "x-mcp-header": "Data" } }), /not object/],
    ["an array", schema({ items: { type: "array", "x-mcp-header": "Items" } }), /not array/],
    ["null", schema({ nil: { type: "null", "x-mcp-header": "Nil" } }), /not null/],
    ["a number", schema({ score: { type: "number", "x-mcp-header": "Score" } }), /not number/],
    ["no type", schema({ any: { "x-mcp-header": "Any" } }), /unspecified type/],
    ["a space", schema({ value: { type: "string", "x-mcp-header": "My Region" } }), /HTTP token/],
    ["a colon", schema({ value: { type: "string", "x-mcp-header": "Region:Primary" } }), /HTTP token/],
    ["non-ASCII", schema({ value: { type: "string", "x-mcp-header": "Région" } }), /HTTP token/],
    ["a tab", schema({ value: { type: "string", "x-mcp-header": "Region\t1" } }), /HTTP token/],
    ["a non-string name", schema({ value: { type: "string", "x-mcp-header": 7 } }), /non-empty string/],
    [
      "the same name twice",
      schema({
        field1: { type: "string", "x-mcp-header": "Region" },
        field2: { type: "string", "x-mcp-header": "Region" },
      }),
      /repeats "Region"/,
    ],
    [
      "names equal but for case",
      schema({
        field1: { type: "string", "x-mcp-header": "MyField" },
        field2: { type: "string", "x-mcp-header": "myfield" },
      }),
      /repeats "MyField".*ignore case/,
    ],
    [
      "an annotation under items",
      schema({ list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
      /under "items"/,
    ],
    [
      "an annotation inside anyOf",
      schema({ value: { anyOf: [{ type: "string", "x-mcp-header": "Value" }] } }),
      /under "anyOf"/,
    ],
    [
      "an annotation reached only through $ref",
      {
        type: "object",
        $defs: { region: { type: "string", "x-mcp-header": "Region" } },
        properties: { region: { $ref: "#/$defs/region" } },
      },
      /under "\$defs"/,
    ],
    [
      "an annotation on the schema itself",
      { type: "object", "x-mcp-header": "Root", properties: {} },
      /only annotate a parameter/,
    ],
  ];
  for (const [what, inputSchema, reason] of invalid) {
    it(`makes the tool invalid for ${what}`, () => {
      const read = readToolParamHeaders(inputSchema);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.reason).toMatch(reason);
    });
  }

  it("refuses a schema nested past its depth limit instead of walking it", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 200; level += 1) deep = { type: "object", properties: { next: deep } };
    const read = readToolParamHeaders(deep);
    expect(read).toMatchObject({ ok: false, reason: expect.stringMatching(/nests deeper/) });
  });
});

describe("paramHeaders", () => {
  const headers = (args: Record<string, unknown>, type = "string") => {
    const read = readToolParamHeaders(schema({ value: { type, "x-mcp-header": "Value" } }));
    if (!read.ok) throw new Error(read.reason);
    return paramHeaders(read.headers, args);
  };

  // The values of the conformance scenario http-custom-headers, and how each must travel.
  const cases: [string, unknown, string, string?][] = [
    ["plain ASCII as is", "us-west1", "us-west1"],
    ["inner spaces as is", "us west 1", "us west 1"],
    ["a value shaped like a header name as is", "test-method", "test-method"],
    ["non-ASCII as base64 of its UTF-8", "Hello, 世界", base64("Hello, 世界")],
    ["leading and trailing spaces as base64", " padded ", base64(" padded ")],
    ["a leading space as base64", " us-west1", base64(" us-west1")],
    ["a trailing space as base64", "us-west1 ", base64("us-west1 ")],
    ["a line feed as base64", "line1\nline2", base64("line1\nline2")],
    ["CR LF as base64", "line1\r\nline2", base64("line1\r\nline2")],
    ["a leading tab as base64", "\tindented", base64("\tindented")],
    ["an inner tab as base64", "a\tb", base64("a\tb")],
    ["an empty string as base64 (a proxy may drop an empty header)", "", "=?base64??="],
    ["a value shaped like the sentinel as base64", "=?base64?abc?=", base64("=?base64?abc?=")],
    ["an integer as its digits", 42, "42", "integer"],
    ["a negative integer as its digits", -7, "-7", "integer"],
    ["true", true, "true", "boolean"],
    ["false", false, "false", "boolean"],
  ];
  for (const [what, value, expected, type] of cases) {
    it(`sends ${what}`, () => {
      expect(headers({ value }, type)).toEqual({ "mcp-param-value": expected });
    });
  }

  it("omits the header for a null or absent value", () => {
    expect(headers({ value: null })).toEqual({});
    expect(headers({})).toEqual({});
    expect(headers({ value: true }, "integer")).toEqual({});
  });

  it("never mirrors an unannotated parameter", () => {
    const read = readToolParamHeaders(
      schema({ region: { type: "string", "x-mcp-header": "Region" }, query: { type: "string" } }),
    );
    expect(read.ok && paramHeaders(read.headers, { region: "eu", query: "SELECT 1" })).toEqual({
      "mcp-param-region": "eu",
    });
  });
});

describe("standardHeaders with a tool header index", () => {
  const index = new ToolHeaderIndex();
  index.record({
    tools: [
      { name: "query", inputSchema: schema({ method: { type: "string", "x-mcp-header": "Method" } }) },
      { name: "plain", inputSchema: schema({ q: { type: "string" } }) },
    ],
  });

  it("adds a listed tool's Mcp-Param-* headers to its stateless calls, beside Mcp-Method", () => {
    const message = {
      method: "tools/call",
      params: { name: "query", arguments: { method: "GET" }, _meta: envelope },
    };
    expect(standardHeaders(message, index)).toEqual({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "query",
      "mcp-param-method": "GET",
    });
  });

  it("adds none to another tool's call, nor to a handshake-era call of the same tool", () => {
    expect(
      standardHeaders(
        { method: "tools/call", params: { name: "plain", arguments: { q: "x" }, _meta: envelope } },
        index,
      ),
    ).not.toHaveProperty("mcp-param-q");
    expect(
      standardHeaders(
        { method: "tools/call", params: { name: "query", arguments: { method: "GET" } } },
        index,
      ),
    ).toEqual({});
  });

  it("forgets a tool relisted with an invalid annotation", () => {
    const relisted = new ToolHeaderIndex();
    relisted.record({
      tools: [{ name: "t", inputSchema: schema({ a: { type: "string", "x-mcp-header": "A" } }) }],
    });
    relisted.record({
      tools: [{ name: "t", inputSchema: schema({ a: { type: "number", "x-mcp-header": "A" } }) }],
    });
    expect(relisted.headersOf("t")).toEqual([]);
  });
});

describe("the Mcp-Param-* header budget", () => {
  const tools = {
    tools: [
      {
        name: "query",
        inputSchema: schema({
          region: { type: "string", "x-mcp-header": "Region" },
          sql: { type: "string", "x-mcp-header": "Sql" },
          body: { type: "string" },
        }),
      },
    ],
  };

  /** A stateless server that lists `tools` and answers every call; `sent` is what reached it. */
  function statelessServer() {
    const sent: string[] = [];
    const inner: McpTransport = {
      async request(method) {
        sent.push(method);
        if (method === "server/discover") {
          return { ok: true, result: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } } };
        }
        return { ok: true, result: method === "tools/list" ? tools : { content: [] } };
      },
      notify: async () => ({ ok: true }),
      onNotification: () => () => {},
      onClose: () => () => {},
      close: async () => {},
    };
    const index = new ToolHeaderIndex();
    // Wired as the Streamable HTTP transport wires it.
    const transport = negotiateEra(inner, {
      toolHeaders: index,
      refuse: (method, params) => paramHeaderOverflow(method, params, index),
    });
    return { transport, sent, index };
  }
  const never = new AbortController().signal;

  it("refuses, before sending, a call whose mirrored arguments would exceed it, naming the parameters", async () => {
    const { transport, sent } = statelessServer();
    await transport.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }, never);
    await transport.request("tools/list", {}, never);
    const sql = "x".repeat(MAX_PARAM_HEADER_BYTES);
    const response = await transport.request(
      "tools/call",
      { name: "query", arguments: { region: "eu", sql } },
      never,
    );
    expect(response).toMatchObject({
      ok: false,
      error: {
        code: MCP_ERROR_CODES.invalidParams,
        message: expect.stringContaining(
          "more than the 8192 allowed; shorten the values of its header parameters (region, sql)",
        ),
        data: { reason: "param_headers_too_large", limit: MAX_PARAM_HEADER_BYTES },
      },
    });
    expect(sent).toEqual(["server/discover", "tools/list"]);
  });

  it("counts only mirrored parameters, after encoding: a long body or a call within the budget goes out", async () => {
    const { transport, sent } = statelessServer();
    await transport.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }, never);
    await transport.request("tools/list", {}, never);
    const within = await transport.request(
      "tools/call",
      { name: "query", arguments: { region: "eu", body: "y".repeat(10 * MAX_PARAM_HEADER_BYTES) } },
      never,
    );
    expect(within).toMatchObject({ ok: true });
    expect(sent.at(-1)).toBe("tools/call");
  });

  it("measures names, separators and base64-encoded values as they go on the wire", () => {
    const index = new ToolHeaderIndex();
    index.record(tools);
    // "mcp-param-sql: " is 15 bytes; non-ASCII text travels base64-encoded: 3,100 "é" are 8,268 bytes.
    const exactly = "a".repeat(MAX_PARAM_HEADER_BYTES - 15);
    expect(
      paramHeaderOverflow("tools/call", { name: "query", arguments: { sql: exactly } }, index),
    ).toBeUndefined();
    const overByOne = `${exactly}a`;
    expect(
      paramHeaderOverflow("tools/call", { name: "query", arguments: { sql: overByOne } }, index),
    ).toMatchObject({
      data: { bytes: MAX_PARAM_HEADER_BYTES + 1 },
    });
    const accented = "é".repeat(3_100);
    expect(
      paramHeaderOverflow("tools/call", { name: "query", arguments: { sql: accented } }, index),
    ).toMatchObject({ data: { reason: "param_headers_too_large" } });
    expect(paramHeaderOverflow("tools/list", {}, index)).toBeUndefined();
  });
});
