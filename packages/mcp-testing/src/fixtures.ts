import { MCP_ERROR_CODES, type McpResponse } from "@agent/mcp-transport";
import type { FakeHandler } from "./fake-transport.js";

/** A successful response carrying `result`. */
export function ok(result: unknown = {}): McpResponse {
  return { ok: true, result };
}

/** A failed response with a JSON-RPC error code (default: internal error). */
export function error(code: number = MCP_ERROR_CODES.internalError, message = "error"): McpResponse {
  return { ok: false, error: { code, message } };
}

/** The smallest valid object input schema: one required string `q`, nothing else allowed. */
export const OBJECT_SCHEMA = {
  type: "object",
  properties: { q: { type: "string", description: "What to search for" } },
  required: ["q"],
  additionalProperties: false,
} as const;

/** A tool as a server lists it in `tools/list`. */
export interface FakeToolSpec {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  title?: string;
}

/** A `tools/list` entry with sensible defaults (description, {@link OBJECT_SCHEMA}). */
export function tool(spec: FakeToolSpec | string): FakeToolSpec {
  const base = typeof spec === "string" ? { name: spec } : spec;
  return { description: `The ${base.name} tool`, inputSchema: OBJECT_SCHEMA, ...base };
}

/** An `initialize` result for `protocolVersion`, as a server would send it. */
export function initializeResult(
  protocolVersion = "2025-06-18",
  capabilities: Record<string, unknown> = { tools: { listChanged: true } },
): unknown {
  return { protocolVersion, capabilities, serverInfo: { name: "fake-server", version: "1.0.0" } };
}

/** A text content block. */
export function textContent(text: string): { type: "text"; text: string } {
  return { type: "text", text };
}

/** Options of {@link fakeServer}. */
export interface FakeServerOptions {
  protocolVersion?: string;
  tools?: (FakeToolSpec | string)[];
  /** Split `tools/list` into pages of this size, linked by `nextCursor`. */
  pageSize?: number;
  /** Answers `tools/call`; by default echoes the arguments as text. */
  call?: FakeHandler;
}

/** Handlers for a well-behaved server: `initialize`, paginated `tools/list` and `tools/call`. */
export function fakeServer(options: FakeServerOptions = {}): Record<string, FakeHandler> {
  const tools = (options.tools ?? ["search"]).map(tool);
  const pageSize = options.pageSize ?? Number.POSITIVE_INFINITY;
  return {
    initialize: () => ok(initializeResult(options.protocolVersion)),
    "tools/list": (params) => {
      const cursor = (params as { cursor?: string } | undefined)?.cursor;
      const start = cursor === undefined ? 0 : Number(cursor);
      const end = start + pageSize;
      return ok({
        tools: tools.slice(start, end),
        ...(end < tools.length ? { nextCursor: String(end) } : {}),
      });
    },
    "tools/call":
      options.call ??
      ((params) =>
        ok({ content: [textContent(JSON.stringify((params as { arguments?: unknown }).arguments ?? {}))] })),
  };
}
