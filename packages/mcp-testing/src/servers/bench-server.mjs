// A minimal MCP server for benchmarks: raw newline-delimited JSON-RPC over stdio, no SDK, so that
// what a benchmark measures is the client's overhead rather than the server's.
//   BENCH_TOOL_COUNT     tools offered: `echo` plus tool_1 ... tool_<n-1> (default 1)
//   BENCH_PAGE_SIZE      tools per tools/list page, pages chained by nextCursor (default 100)
//   BENCH_READY_DELAY_MS the server answers `initialize` no earlier than this long after its
//                        process started: a server that takes this long to become ready (default 0)
// It exits when its stdin ends, so it can never outlive its client.

const toolCount = Math.max(1, readNumber("BENCH_TOOL_COUNT", 1));
const pageSize = Math.max(1, readNumber("BENCH_PAGE_SIZE", 100));
const readyDelayMs = readNumber("BENCH_READY_DELAY_MS", 0);

// Every tool gets its own schema (the property description names it), as on a real server: a client
// that caches conversions by schema content must not look faster here than it would be there.
function messageSchema(index) {
  return {
    type: "object",
    properties: { message: { type: "string", description: `Sent back unchanged by tool ${index}.` } },
    required: ["message"],
  };
}

const tools = Array.from({ length: toolCount }, (_, index) => ({
  name: index === 0 ? "echo" : `tool_${index}`,
  description: index === 0 ? "Returns its arguments as JSON text." : `Benchmark tool number ${index}.`,
  inputSchema: messageSchema(index),
}));

// Pages are serialized lazily once: listing them again must cost the server nothing.
const pageResults = new Map();
function listPage(cursor) {
  const start = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(start) || start < 0 || start >= tools.length) return undefined;
  let text = pageResults.get(start);
  if (text === undefined) {
    const end = start + pageSize;
    const result = { tools: tools.slice(start, end) };
    if (end < tools.length) result.nextCursor = String(end);
    text = JSON.stringify(result);
    pageResults.set(start, text);
  }
  return text;
}

function answer(id, resultText) {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}\n`;
}

function fail(id, code, message) {
  return `${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`;
}

function handle(message) {
  const { id, method, params } = message;
  // Notifications (no id), e.g. notifications/initialized or notifications/cancelled, need no answer.
  if (id === undefined || id === null) return "";
  switch (method) {
    case "ping":
      return answer(id, "{}");
    case "tools/list": {
      const page = listPage(params?.cursor);
      return page === undefined ? fail(id, -32602, "invalid cursor") : answer(id, page);
    }
    case "tools/call": {
      const text = JSON.stringify(params?.arguments ?? {});
      return answer(id, JSON.stringify({ content: [{ type: "text", text }] }));
    }
    default:
      return fail(id, -32601, `method not found: ${method}`);
  }
}

function initializeResult(params) {
  return JSON.stringify({
    // Whatever the client offers is accepted: both clients under test offer a version they support.
    protocolVersion: params?.protocolVersion ?? "2025-06-18",
    capabilities: { tools: {} },
    serverInfo: { name: "bench", version: "1.0.0" },
  });
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (pending + chunk).split("\n");
  pending = lines.pop() ?? "";
  // All answers to one chunk leave in one write: fewer syscalls, less server time in the numbers.
  let out = "";
  for (const line of lines) {
    if (line.trim() === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      out += fail(null, -32700, "parse error");
      continue;
    }
    if (message.method === "initialize") {
      const result = answer(message.id, initializeResult(message.params));
      // performance.now() counts from this process's start, so the delay models readiness, not a sleep.
      const wait = readyDelayMs - performance.now();
      if (wait > 0) setTimeout(() => process.stdout.write(result), wait);
      else out += result;
      continue;
    }
    out += handle(message);
  }
  if (out !== "") process.stdout.write(out);
});
process.stdin.on("end", () => process.exit(0));

function readNumber(name, fallback) {
  const value = Number(process.env[name] ?? fallback);
  return Number.isFinite(value) ? value : fallback;
}
