// A well-behaved MCP server for tests. Extra tools come from MCP_TESTING_TOOLS, a JSON array of
// { name, description?, inputSchema?, result? }; each answers with `result` or with its arguments.
import { echoTool, objectSchema, record, serveTools, sleep, text } from "./server-kit.mjs";

const configured = JSON.parse(process.env.MCP_TESTING_TOOLS ?? "[]").map((tool) => ({
  ...tool,
  call: (args) => text(tool.result ?? args),
}));

const builtIn = [
  echoTool,
  {
    name: "slow",
    description: "Reports progress every 50 ms until cancelled or until maxMs have passed.",
    inputSchema: { type: "object", properties: { maxMs: { type: "number" } } },
    call: async (args, extra) => {
      const maxMs = typeof args.maxMs === "number" ? args.maxMs : 30_000;
      const token = extra._meta?.progressToken;
      const started = Date.now();
      let step = 0;
      while (Date.now() - started < maxMs) {
        try {
          await sleep(50, extra.signal);
        } catch {
          // The SDK sends nothing for a cancelled request; this return value is discarded.
          return text("cancelled");
        }
        step += 1;
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step },
          });
          record("progress", { requestId: extra.requestId, progress: step });
        }
      }
      return text(`finished after ${step} steps`);
    },
  },
  {
    name: "env",
    description: "Returns the environment the server runs with.",
    inputSchema: objectSchema(),
    call: () => text(process.env),
  },
  {
    name: "fail",
    description: "Answers with a tool error (isError: true).",
    inputSchema: objectSchema(),
    call: () => ({ ...text("this tool always fails"), isError: true }),
  },
];

await serveTools("scriptable", () => [...builtIn, ...configured]);
