// A server on the current SDK over its own legacy HTTP+SSE server transport (`SSEServerTransport`,
// express on PORT: GET /sse, POST /messages). Tools: `echo`, `slow` (waits MCP `ms`, records a
// cancellation), `huge` (answers `bytes` of text in one event), `drop` (ends the event stream), and
// `whoami` (the Authorization header it was sent, to prove headers travel).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import express from "express";
import { objectSchema, record, sleep, text } from "./server-kit.mjs";

const TOOLS = [
  {
    name: "echo",
    description: "Returns its arguments.",
    inputSchema: objectSchema({ message: { type: "string" } }),
  },
  { name: "slow", description: "Waits.", inputSchema: objectSchema({ ms: { type: "number" } }) },
  {
    name: "huge",
    description: "Answers a large text.",
    inputSchema: objectSchema({ bytes: { type: "number" } }),
  },
  { name: "drop", description: "Ends the event stream.", inputSchema: objectSchema() },
  { name: "whoami", description: "The Authorization header received.", inputSchema: objectSchema() },
];

const sessions = new Map();
const app = express();

app.get("/sse", async (request, response) => {
  const transport = new SSEServerTransport("/messages", response);
  const authorization = request.headers.authorization ?? null;
  sessions.set(transport.sessionId, transport);
  response.on("close", () => sessions.delete(transport.sessionId));
  const server = new Server({ name: "sse-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const args = call.params.arguments ?? {};
    switch (call.params.name) {
      case "echo":
        return text(args);
      case "slow":
        extra.signal.addEventListener("abort", () => record("cancelled", { requestId: extra.requestId }));
        await sleep(Number(args.ms ?? 60_000), extra.signal).catch(() => {});
        return text("done");
      case "huge":
        return text("x".repeat(Number(args.bytes ?? 1024)));
      case "drop":
        setTimeout(() => response.end(), 10);
        return text("dropping");
      case "whoami":
        return text({ authorization });
      default:
        return { content: [text("unknown").content[0]], isError: true };
    }
  });
  await server.connect(transport);
});

app.post("/messages", async (request, response) => {
  const transport = sessions.get(String(request.query.sessionId));
  if (!transport) {
    response.status(404).send("unknown session");
    return;
  }
  await transport.handlePostMessage(request, response);
});

app.listen(Number(process.env.PORT ?? 0));
