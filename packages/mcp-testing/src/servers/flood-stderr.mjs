// Misbehaves by writing megabytes to stderr (MCP_TESTING_STDERR_BYTES, default 4 MiB) before it
// starts, and more on each `flood` call. The writes are synchronous: the server blocks, as a
// native server would, whenever the client stops draining the pipe.
import { writeSync } from "node:fs";
import { echoTool, objectSchema, record, serveTools, text } from "./server-kit.mjs";

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const LINE = `flood \u001b[31mred\u001b[0m ${"x".repeat(100)}\n`;

function flood(bytes) {
  const chunk = Buffer.from(LINE.repeat(Math.ceil(65_536 / LINE.length)));
  let written = 0;
  while (written < bytes) {
    try {
      written += writeSync(2, chunk);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      // The pipe is full and non-blocking: wait without yielding to the event loop, like a blocking write.
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
  return written;
}

const initial = flood(Number(process.env.MCP_TESTING_STDERR_BYTES ?? 4 * 1024 * 1024));
await serveTools("flood-stderr", () => [
  echoTool,
  {
    name: "flood",
    description: "Writes `bytes` to stderr, then answers.",
    inputSchema: objectSchema({ bytes: { type: "number" } }),
    call: (args) => text(`flooded ${flood(args.bytes)} bytes`),
  },
]);
record("flooded", { bytes: initial });
