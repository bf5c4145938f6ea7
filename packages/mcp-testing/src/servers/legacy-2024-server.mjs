// A server on the MCP SDK 1.0.4, which speaks protocol 2024-11-05 only, over stdio (`stdio`, the
// default) or the HTTP+SSE transport of that version (`sse`, on PORT: GET /sse, POST /messages).
// It sends fields its version does not define (annotations, outputSchema, structuredContent) to
// prove the client ignores them, and its tools ask the client for roots and a sampled message.
import http from "node:http";
import { Server } from "@modelcontextprotocol/sdk-2024-11-05/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk-2024-11-05/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk-2024-11-05/server/stdio.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk-2024-11-05/types.js";

const TOOLS = [
  {
    name: "echo",
    description: "Returns its message.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    // Not part of 2024-11-05: a client of that version must not trust or forward these.
    annotations: { readOnlyHint: true, destructiveHint: false },
    outputSchema: { type: "object", properties: { echoed: { type: "integer" } }, required: ["echoed"] },
  },
  {
    name: "list-roots",
    description: "Asks the client for its roots.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "sample",
    description: "Asks the client's model to complete a prompt.",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  },
];

function createServer() {
  const server = new Server(
    { name: "legacy-2024", version: "1.0.4" },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === "echo") {
      return {
        content: [{ type: "text", text: String(args.message) }],
        structuredContent: { echoed: "not a number" },
      };
    }
    if (request.params.name === "list-roots") {
      const { roots } = await server.listRoots();
      return { content: [{ type: "text", text: JSON.stringify(roots) }] };
    }
    if (request.params.name === "sample") {
      const answer = await server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
        maxTokens: 1000,
      });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    }
    return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: "legacy://notes/1", name: "Note 1", mimeType: "text/plain" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
    contents: [{ uri: request.params.uri, mimeType: "text/plain", text: "the first note" }],
  }));
  return server;
}

if (process.argv[2] === "sse") {
  const sessions = new Map();
  const httpServer = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      sessions.set(transport.sessionId, transport);
      response.on("close", () => sessions.delete(transport.sessionId));
      await createServer().connect(transport);
      return;
    }
    if (request.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId"));
      if (!transport) {
        response.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404).end();
  });
  httpServer.listen(Number(process.env.PORT ?? 0));
} else {
  await createServer().connect(new StdioServerTransport());
}
