// Misbehaves by answering every tools/call with a result nested MCP_TESTING_DEPTH levels deep
// (default 20,000), written as raw JSON: deeper than the SDK's own serializer could produce, and
// deeper than any recursive code on the client side survives.
import { createInterface } from "node:readline";
import { record } from "./server-kit.mjs";

const depth = Number(process.env.MCP_TESTING_DEPTH ?? 20_000);
const deep = `${"[".repeat(depth)}"leaf"${"]".repeat(depth)}`;
const send = (text) => process.stdout.write(`${text}\n`);
const tool = {
  name: "deep",
  description: "Answers with a deeply nested result.",
  inputSchema: { type: "object" },
};

record("started", { pid: process.pid, server: "deep-result" });
for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  if (message.id === undefined) continue;
  const answer = (result) => send(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`);
  if (message.method === "initialize") {
    answer(
      JSON.stringify({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "deep-result", version: "1.0.0" },
      }),
    );
  } else if (message.method === "tools/list") {
    answer(JSON.stringify({ tools: [tool] }));
  } else if (message.method === "tools/call") {
    answer(`{"content":[{"type":"text","text":"deep"}],"structuredContent":{"deep":${deep}}}`);
  } else {
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      }),
    );
  }
}
