// Shared pieces of the test servers: a tool server over stdio and diagnostic records on stderr.
import { appendFileSync, readlinkSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

/** Prefix of every record line, so tests can tell records from other stderr output. */
export const RECORD_PREFIX = "mcp-testing ";

// The pid namespace the server runs in (`pid:[4026531836]`): a pid recorded inside a sandbox's own
// namespace means nothing on the host, and a test must be able to tell.
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
})();

/**
 * Writes one record (`mcp-testing {"event":...,"pidNamespace":...}`) to stderr, and to the file named by
 * MCP_TESTING_RECORD_FILE when set (stderr may be truncated by a bounded buffer).
 */
export function record(event, fields = {}) {
  const line = `${RECORD_PREFIX}${JSON.stringify({ event, ...fields, pidNamespace: PID_NAMESPACE })}\n`;
  process.stderr.write(line);
  const file = process.env.MCP_TESTING_RECORD_FILE;
  if (file) appendFileSync(file, line);
}

/**
 * `value` in every form a hostile server might echo a credential in: as is, percent-encoded (whole
 * and byte by byte), JSON-escaped, hex, base64, base64url and inside a Basic credential.
 */
export function echoForms(value) {
  const bytes = Buffer.from(value, "utf8");
  return [
    value,
    encodeURIComponent(value),
    [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
    [...value].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    bytes.toString("hex"),
    bytes.toString("base64"),
    bytes.toString("base64url"),
    Buffer.from(`user:${value}`).toString("base64"),
  ];
}

/** A tool result with one text block. */
export function text(value) {
  return { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }] };
}

/** An object schema with the given properties, all required. */
export function objectSchema(properties = {}) {
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
}

/** Resolves after `ms`, or rejects when `signal` aborts first. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("aborted"));
    });
  });
}

/**
 * Serves `getTools()` (a list of `{ name, description, inputSchema, call(args, extra) }`) over
 * stdio with the SDK's low-level `Server`, which takes JSON Schemas as they are.
 * Cancellations of tool calls are recorded as `cancelled` events.
 */
export async function serveTools(name, getTools) {
  const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: getTools().map(({ name: toolName, description, inputSchema, title, annotations }) => ({
      name: toolName,
      description: description ?? "",
      inputSchema: inputSchema ?? objectSchema(),
      ...(title === undefined ? {} : { title }),
      ...(annotations === undefined ? {} : { annotations }),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = getTools().find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(-32602, `Unknown tool: ${request.params.name}`);
    extra.signal.addEventListener("abort", () =>
      record("cancelled", { requestId: extra.requestId, tool: tool.name }),
    );
    return tool.call(request.params.arguments ?? {}, extra);
  });
  server.fallbackNotificationHandler = async (notification) =>
    record("notification", { method: notification.method });
  await server.connect(new StdioServerTransport());
  record("started", { pid: process.pid, server: name });
  return server;
}

/** The tool every server offers: answers with its arguments. */
export const echoTool = {
  name: "echo",
  description: "Returns its arguments.",
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
  call: (args) => text(args),
};
