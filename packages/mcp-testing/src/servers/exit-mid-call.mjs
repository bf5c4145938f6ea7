// Misbehaves by exiting (code MCP_TESTING_EXIT_CODE, default 3) in the middle of a `tools/call` of `exit`.
import { echoTool, record, serveTools } from "./server-kit.mjs";

await serveTools("exit-mid-call", () => [
  echoTool,
  {
    name: "exit",
    description: "Exits the server without answering.",
    call: async (_args, extra) => {
      record("exiting", { requestId: extra.requestId });
      process.exit(Number(process.env.MCP_TESTING_EXIT_CODE ?? 3));
    },
  },
]);
