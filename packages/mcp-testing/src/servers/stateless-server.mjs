// A Streamable HTTP MCP server that speaks only the stateless 2026-07-28 protocol, in plain Node (no
// SDK): `server/discover` instead of `initialize` (which it refuses as an old client's), JSON
// responses, no session. Its tools exercise what that revision adds on the client's side:
//   route    `region` is annotated `x-mcp-header: Region`; answers with the Mcp-* headers it received
//   confirm  asks for a confirmation (an elicitation) as an InputRequiredResult with a requestState,
//            and answers with the elicitation's answer and whether the state came back unchanged
//   broken   an invalid annotation (on a number): a conforming client excludes it and never calls it
//   job      runs as a task (tasks extension, see stateless-tasks.mjs); POST /control/release ends held jobs
// Every request is recorded (`received`, with its method and task id) to MCP_TESTING_RECORD_FILE.
// Listens on PORT (0: any free port; the loopback preload reports it).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { record } from "./server-kit.mjs";
import { createTaskBoard, JOB_TOOL, TASKS_EXTENSION } from "./stateless-tasks.mjs";

const VERSION = "2026-07-28";
const states = new Set();
const tasks = createTaskBoard();

const TOOLS = [
  {
    name: "route",
    description: "Says which Mcp-* headers carried the call.",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, query: { type: "string" } },
      required: ["region"],
    },
  },
  {
    name: "confirm",
    description: "Asks the user to confirm, then says what they answered.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "broken",
    description: "Carries an invalid x-mcp-header annotation.",
    inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
  },
  JOB_TOOL,
];

function text(value) {
  return { resultType: "complete", content: [{ type: "text", text: JSON.stringify(value) }] };
}

function callTool(params, headers) {
  if (params?.name === "route") {
    const mirrored = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("mcp-")));
    return text(mirrored);
  }
  if (params?.name === "confirm") {
    const answer = params.inputResponses?.confirm;
    if (answer === undefined) {
      // Shaped like JSON with odd spacing: a client that parses and re-serializes it changes it.
      const state = `{ "nonce" : "${randomUUID()}" }`;
      states.add(state);
      return {
        resultType: "input_required",
        inputRequests: {
          confirm: {
            method: "elicitation/create",
            params: {
              message: "Proceed with the deployment?",
              requestedSchema: { type: "object", properties: { confirmed: { type: "boolean" } } },
            },
          },
        },
        requestState: state,
      };
    }
    return text({ answer, stateEchoed: states.delete(params.requestState) });
  }
  if (params?.name === "job") return tasks.callJob(params);
  return undefined;
}

function answer(message, headers) {
  const { id, method, params } = message;
  if (method === "server/discover") {
    return {
      jsonrpc: "2.0",
      id,
      result: {
        resultType: "complete",
        supportedVersions: [VERSION],
        capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
        serverInfo: { name: "stateless-server", version: "1.0.0" },
      },
    };
  }
  if (method === "tools/list") {
    return {
      jsonrpc: "2.0",
      id,
      result: { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: TOOLS },
    };
  }
  if (method === "tools/call") {
    const result = callTool(params, headers);
    if (result) return { jsonrpc: "2.0", id, result };
    return { jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } };
  }
  const task = tasks.answer(method, params);
  if (task) return { jsonrpc: "2.0", id, ...task };
  return { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } };
}

const server = createServer((request, response) => {
  if (request.method === "POST" && request.url === "/control/release") {
    tasks.release();
    response.writeHead(204).end();
    return;
  }
  if (request.method !== "POST") {
    response.writeHead(405).end();
    return;
  }
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk) => {
    body += chunk;
  });
  request.on("end", () => {
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
      );
      return;
    }
    record("received", {
      method: message.method,
      taskId: message.params?.taskId,
      tool: message.params?.name,
    });
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    if (request.headers["mcp-protocol-version"] !== VERSION) {
      response.writeHead(400, { "content-type": "application/json" });
      const error = { code: -32022, message: "Unsupported protocol version", data: { supported: [VERSION] } };
      response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, error }));
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(answer(message, request.headers)));
  });
});
server.listen(Number(process.env.PORT ?? 0));
