import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StdioProcessTransport } from "@agent/mcp-transport/stdio";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { temporaryDirectory, waitFor } from "./helpers.js";

// The transport writes the first message of a tick at once and holds the others of that tick for one
// writev: these check from the server's side that nothing is lost, duplicated or reordered by it.

// Appends the id of every line it reads to RECORD, answers it unless told to exit on the first one,
// and exits when stdin ends.
const SERVER = `
const { appendFileSync } = require("node:fs");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf("\\n")) !== -1) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    const { id } = JSON.parse(line);
    appendFileSync(process.env.RECORD, id + "\\n");
    if (process.env.EXIT_ON_FIRST) process.exit(0);
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { id } }) + "\\n");
  }
});
process.stdin.on("end", () => process.exit(0));
`;

async function start(env: Record<string, string> = {}) {
  const folder = temporaryDirectory();
  const script = join(folder, "server.cjs");
  writeFileSync(script, SERVER);
  const record = join(folder, "received.txt");
  writeFileSync(record, "");
  const transport = new StdioProcessTransport({
    command: process.execPath,
    args: [script],
    env: { RECORD: record, ...env },
    closeTimeoutMs: 2000,
  });
  onTestFinished(() => transport.close());
  const answers: number[] = [];
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && typeof message.id === "number") answers.push(message.id);
  };
  await transport.start();
  const received = (): number[] => readFileSync(record, "utf8").split("\n").filter(Boolean).map(Number);
  return { transport, answers, received };
}

function request(id: number): JSONRPCMessage {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { n: id } } };
}

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index + 1);

describe("stdio write batching", () => {
  it("delivers every message of one tick, in order, even when close() follows in that tick", async () => {
    const { transport, received } = await start();
    const sends = range(50).map((id) => transport.send(request(id)));
    const closing = transport.close();
    await Promise.allSettled(sends);
    await closing;
    expect(received()).toEqual(range(50));
  });

  it("keeps the order of messages sent across microtasks, ticks and turns", async () => {
    const { transport, answers, received } = await start();
    const sends: Promise<void>[] = [];
    const send = (id: number) => sends.push(transport.send(request(id)));
    send(1);
    send(2);
    queueMicrotask(() => send(3));
    process.nextTick(() => send(4));
    setImmediate(() => {
      send(5);
      send(6);
      queueMicrotask(() => send(7));
    });
    await waitFor(() => sends.length === 7);
    await Promise.all(sends);
    await waitFor(() => answers.length === 7);
    expect(received()).toEqual(range(7));
    expect(answers).toEqual(range(7));
  });

  it("delivers a large first message and the ones held behind it, in order", async () => {
    const { transport, received } = await start();
    const large: JSONRPCMessage = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(3 * 1024 * 1024) } },
    };
    const sends = [transport.send(large), ...range(20).map((id) => transport.send(request(id + 1)))];
    await Promise.all(sends);
    await waitFor(() => received().length === 21, 10_000);
    expect(received()).toEqual(range(21));
  });

  it("settles every send when the server exits on the first message", async () => {
    const { transport, received } = await start({ EXIT_ON_FIRST: "1" });
    const first = await Promise.allSettled(range(10).map((id) => transport.send(request(id))));
    expect(first).toHaveLength(10);
    await waitFor(() => transport.closeReason);
    const later = await Promise.allSettled(range(5).map((id) => transport.send(request(id + 10))));
    expect(later.every((outcome) => outcome.status === "rejected")).toBe(true);
    expect(received()).toEqual([1]);
  });
});
