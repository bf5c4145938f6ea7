// Misbehaves by never answering anything, `initialize` included; records every message it receives.
import { createInterface } from "node:readline";
import { record } from "./server-kit.mjs";

record("started", { pid: process.pid, server: "hang-initialize" });
for await (const line of createInterface({ input: process.stdin })) {
  try {
    const message = JSON.parse(line);
    record("received", { method: message.method, id: message.id, params: message.params });
  } catch {
    record("received", { unparsable: line.slice(0, 100) });
  }
}
