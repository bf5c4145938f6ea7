// Misbehaves by answering a `tools/call` of `huge` with a single message of `bytes` (default 8 MiB).
import { echoTool, serveTools, text } from "./server-kit.mjs";

await serveTools("huge-message", () => [
  echoTool,
  {
    name: "huge",
    description: "Answers with one huge message.",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } },
    call: (args) => text("x".repeat(typeof args.bytes === "number" ? args.bytes : 8 * 1024 * 1024)),
  },
]);
