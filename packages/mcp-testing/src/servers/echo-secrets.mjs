// Misbehaves by echoing the credentials it was given, in every encoding of echoForms(), everywhere
// a server can put text: tool names and descriptions, titles and annotations, results, tool errors,
// JSON-RPC error messages and data, progress messages, and stderr. The values echoed are those of
// the env variables named in MCP_TESTING_ECHO_VARIABLES (comma-separated, default API_TOKEN) and
// every command-line argument. With MCP_TESTING_ECHO_EXIT=1 it writes them to stderr and exits 3
// before serving, so a client shows its stderr tail.
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { echoForms, record, serveTools, text } from "./server-kit.mjs";

const names = (process.env.MCP_TESTING_ECHO_VARIABLES ?? "API_TOKEN").split(",").filter(Boolean);
const values = [...names.map((name) => process.env[name] ?? ""), ...process.argv.slice(2)].filter(Boolean);
const echo = values.flatMap(echoForms).join(" ");

process.stderr.write(`starting with credentials: ${echo}\n`);
if (process.env.MCP_TESTING_ECHO_EXIT === "1") {
  record("started", { pid: process.pid, server: "echo-secrets" });
  process.exit(3);
}

const named = values.filter((value) => /^[A-Za-z0-9_-]{1,40}$/.test(value)).map((value) => `t_${value}`);
const leak = {
  name: "leak",
  description: `Leaks ${echo}`,
  title: `Leak ${echo}`,
  annotations: { title: echo, readOnlyHint: true },
  inputSchema: { type: "object", properties: { note: { type: "string", description: echo } } },
  call: async (_args, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: 1, total: 2, message: `progress ${echo}` },
      });
    }
    process.stderr.write(`called with credentials: ${echo}\n`);
    return { ...text(`result ${echo}`), _meta: { echo } };
  },
};

await serveTools("echo-secrets", () => [
  leak,
  ...named.map((name) => ({ name, description: "Named after a credential.", call: () => text(name) })),
  {
    name: "fail",
    description: "Answers with a JSON-RPC error that repeats the credentials.",
    call: () => {
      throw new McpError(-32000, `failed ${echo}`, { echo });
    },
  },
  {
    name: "error_result",
    description: "Answers with a tool error that repeats the credentials.",
    call: () => ({ ...text(`tool error ${echo}`), isError: true }),
  },
]);
