import { MCP_ERROR_CODES } from "@agent/mcp-transport";
import { isToolFailure, type ToolContext, toolFailure } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { McpToolDescriptor } from "../src/discovery.js";
import { mapCallResult, mcpToolGroup, type RemoteToolPort, toLocalTool } from "../src/tool-mapping.js";
import { EMPTY_ANSWERS } from "./harness.js";

function descriptor(overrides: Partial<McpToolDescriptor> = {}): McpToolDescriptor {
  return {
    server: "docs",
    remoteName: "search",
    description: "Search the docs",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    outputSchema: undefined,
    annotations: undefined,
    title: undefined,
    ...overrides,
  };
}

function mapped(overrides: Partial<McpToolDescriptor> = {}, port: RemoteToolPort = EMPTY_ANSWERS) {
  const result = toLocalTool(descriptor(overrides), port);
  if (!result.ok) throw new Error(`expected a tool, got: ${result.reason}`);
  return result.tool;
}

describe("toLocalTool", () => {
  it("makes an external tool in the server's group that validates with the remote schema", () => {
    const tool = mapped();
    expect([tool.name, tool.effect, tool.group]).toEqual([
      "mcp__docs__search",
      "external",
      mcpToolGroup("docs"),
    ]);
    expect(tool.parameters).toMatchObject({ type: "object", required: ["query"] });
    expect(tool.prepare({ query: "zod" }).ok).toBe(true);
    expect(tool.prepare({ query: 1 }).ok).toBe(false);
  });

  it("keeps annotations as hints only: a read-only hint never lowers the effect", () => {
    const tool = mapped({ annotations: { readOnlyHint: true }, title: "Search" });
    expect(tool.effect).toBe("external");
    expect(tool.annotations).toEqual({ readOnlyHint: true, title: "Search" });
  });

  it("rejects a tool it cannot map, saying why", () => {
    const reasons = [
      toLocalTool(descriptor({ remoteName: "has space" }), EMPTY_ANSWERS),
      toLocalTool(descriptor({ inputSchema: { type: "object", not: {} } }), EMPTY_ANSWERS),
      toLocalTool(descriptor({ description: "lone \uD800" }), EMPTY_ANSWERS),
    ].map((result) => (result.ok ? "mapped" : result.reason.split(":")[0]));
    expect(reasons).toEqual(["invalid_tool_name", "unsupported_input_schema", "invalid_tool_definition"]);
  });

  it("binds the fingerprint to the definition and the server's identity, not to a later change of the descriptor", () => {
    const original = descriptor();
    const tool = toLocalTool(original, EMPTY_ANSWERS, { serverIdentity: "sha-a" });
    const other = toLocalTool(descriptor(), EMPTY_ANSWERS, { serverIdentity: "sha-b" });
    if (!tool.ok || !other.ok) throw new Error("expected both tools to map");
    (original.inputSchema as { required: string[] }).required = [];
    original.description = "changed";
    const same = toLocalTool(descriptor(), EMPTY_ANSWERS, { serverIdentity: "sha-a" });
    if (!same.ok) throw new Error("expected the tool to map");
    // The conversion runs on first use, after the change: it still sees the definition as it was mapped.
    expect(tool.tool.fingerprint).toBe(same.tool.fingerprint);
    expect(tool.tool.fingerprint).not.toBe(other.tool.fingerprint);
    expect(tool.tool.description).toBe("Search the docs");
    expect(tool.tool.prepare({}).ok).toBe(false);
  });

  it("calls the server by its remote name and returns the mapped answer", async () => {
    const calls: [string, unknown][] = [];
    const tool = mapped(
      {},
      {
        callTool: async (remoteName, args) => {
          calls.push([remoteName, args]);
          return { ok: true, result: { content: [{ type: "text", text: "found" }] } };
        },
      },
    );
    const prepared = tool.prepare({ query: "zod" });
    if (!prepared.ok) throw new Error("expected valid input");
    const output = await prepared.execute({} as ToolContext);
    expect(calls).toEqual([["search", { query: "zod" }]]);
    expect(output).toEqual({ content: [{ type: "text", text: "found" }] });
  });
});

describe("mapCallResult", () => {
  it("returns the content, and structuredContent when the server sent it", () => {
    expect(mapCallResult({ ok: true, result: { content: [], structuredContent: { n: 1 } } })).toEqual({
      content: [],
      structuredContent: { n: 1 },
    });
  });

  it("keeps a failure as it came, and turns isError into mcp_tool_error with the server's text", () => {
    const failure = toolFailure("cancelled", "stop");
    expect(mapCallResult({ ok: false, failure })).toBe(failure);
    const mapped = mapCallResult({
      ok: true,
      result: { isError: true, content: [{ type: "text", text: "no such page" }] },
    });
    expect(isToolFailure(mapped) && mapped).toMatchObject({
      error: "mcp_tool_error",
      message: "The tool reported an error: no such page",
    });
  });

  it("fails an answer of the wrong shape as mcp_error with the internal-error code", () => {
    for (const result of [null, { content: "text" }, { content: [{ text: "no type" }] }]) {
      const mapped = mapCallResult({ ok: true, result });
      expect(isToolFailure(mapped) && mapped).toMatchObject({
        error: "mcp_error",
        code: MCP_ERROR_CODES.internalError,
      });
    }
  });

  it("holds structuredContent to the declared output schema", () => {
    const schema = z.object({ n: z.number() });
    expect(mapCallResult({ ok: true, result: { content: [], structuredContent: { n: 1 } } }, schema)).toEqual(
      {
        content: [],
        structuredContent: { n: 1 },
      },
    );
    const mapped = mapCallResult(
      { ok: true, result: { content: [], structuredContent: { n: "1" } } },
      schema,
    );
    expect(isToolFailure(mapped) && mapped).toMatchObject({ error: "mcp_error" });
  });
});
