// Misbehaves by never answering `tools/call` of `hang`, even when cancelled (the cancellation is recorded).
import { echoTool, serveTools } from "./server-kit.mjs";

await serveTools("hang-call", () => [
  echoTool,
  { name: "hang", description: "Never answers.", call: () => new Promise(() => {}) },
]);
