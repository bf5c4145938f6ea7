// Misbehaves by paging tools/list forever: MCP_TESTING_PAGES pages (default 1,000), each with one
// tool whose description is MCP_TESTING_DESCRIPTION_BYTES long (default 3 MB). A client without a
// byte budget for discovery runs out of memory; records each page it served as `page`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { objectSchema, record } from "./server-kit.mjs";

const pages = Number(process.env.MCP_TESTING_PAGES ?? 1_000);
const description = "x".repeat(Number(process.env.MCP_TESTING_DESCRIPTION_BYTES ?? 3_000_000));
const server = new Server({ name: "budget-buster", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const page = Number(request.params?.cursor ?? 0);
  record("page", { page });
  return {
    tools: [{ name: `tool_${page}`, description, inputSchema: objectSchema() }],
    ...(page + 1 < pages ? { nextCursor: String(page + 1) } : {}),
  };
});
await server.connect(new StdioServerTransport());
record("started", { pid: process.pid, server: "budget-buster" });
