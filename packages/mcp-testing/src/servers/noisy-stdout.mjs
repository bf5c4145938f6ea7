// Misbehaves by printing banners, logs and garbage on stdout, before and between its JSON-RPC messages.
import { echoTool, serveTools } from "./server-kit.mjs";

const NOISE = [
  "Starting noisy server v1.2.3 ...",
  "\u001b[32mREADY\u001b[0m listening on stdio",
  "{not json at all",
  '{"jsonrpc":"1.0","note":"valid JSON, not JSON-RPC 2.0"}',
  "[1, 2, 3]",
  "",
  "\r",
  "warning: something happened\r",
];

for (const line of NOISE) process.stdout.write(`${line}\n`);
let next = 0;
// Unref'd: the noise must not keep the server alive once stdin ends.
setInterval(() => {
  process.stdout.write(`${NOISE[next % NOISE.length]}\n`);
  next += 1;
}, 20).unref();

await serveTools("noisy-stdout", () => [echoTool]);
