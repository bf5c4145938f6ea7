// Loads what the benchmark measures: the BUILT workspace packages (dist/) and the very copy of the MCP
// SDK they use. The repository root depends on neither, so both are found from the packages' folders.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The built benchmark server, copied to dist/ by the mcp-testing build. */
export const BENCH_SERVER_PATH = join(REPO_ROOT, "packages/mcp-testing/dist/servers/bench-server.mjs");

function distEntry(relativePath) {
  const path = join(REPO_ROOT, relativePath);
  if (!existsSync(path)) {
    throw new Error(`${relativePath} is missing: build first (\`pnpm bench\` does, or \`pnpm build\`).`);
  }
  return pathToFileURL(path).href;
}

// Node 20 cannot resolve a bare specifier from another folder without a flag, so this looks the SDK up
// the way `import` would from packages/mcp-transport (node_modules folders upwards), then follows the
// SDK's exports map with the "import" condition.
function sdkEntry(subpath) {
  const fromTransport = createRequire(join(REPO_ROOT, "packages/mcp-transport/package.json"));
  const folders = fromTransport.resolve.paths("@modelcontextprotocol/sdk") ?? [];
  const directory = folders
    .map((folder) => join(folder, "@modelcontextprotocol/sdk"))
    .find((candidate) => existsSync(join(candidate, "package.json")));
  if (!directory) throw new Error("@modelcontextprotocol/sdk is not installed for packages/mcp-transport.");
  const { exports } = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"));
  const exact = exports[`./${subpath}`];
  const target = exact ? exact.import : exports["./*"].import.replace("*", subpath);
  // The real path, so that this is the very module instance our packages load.
  return pathToFileURL(realpathSync(join(directory, target))).href;
}

// The zod our packages use, found from packages/tools as `import` would.
function zodEntry() {
  return pathToFileURL(createRequire(join(REPO_ROOT, "packages/tools/package.json")).resolve("zod")).href;
}

/**
 * Imports only what the agent-loop suite's processes need (tools, policy, loop, zod): each of them
 * starts in a fraction of the time loading everything takes.
 */
export async function loadLoopModules() {
  const [tools, policy, loop, zod] = await Promise.all([
    import(distEntry("packages/tools/dist/index.js")),
    import(distEntry("packages/policy/dist/index.js")),
    import(distEntry("packages/loop/dist/index.js")),
    import(zodEntry()),
  ]);
  return {
    ToolRegistry: tools.ToolRegistry,
    executeToolCall: tools.executeToolCall,
    defineTool: tools.defineTool,
    createPolicyGate: policy.createPolicyGate,
    definePolicy: policy.definePolicy,
    InMemoryApprovalStore: policy.InMemoryApprovalStore,
    startRun: loop.startRun,
    InMemoryRunStore: loop.InMemoryRunStore,
    z: zod.z,
  };
}

/** Imports everything the suites need; throws with a hint when the packages are not built. */
export async function loadModules() {
  const [
    tools,
    toolsNode,
    policy,
    bwrap,
    transport,
    stdio,
    http,
    client,
    sdkClient,
    sdkStdio,
    loop,
    zod,
    testing,
  ] = await Promise.all([
    import(distEntry("packages/tools/dist/index.js")),
    import(distEntry("packages/tools/dist/node/index.js")),
    import(distEntry("packages/policy/dist/index.js")),
    import(distEntry("packages/policy/dist/bwrap/index.js")),
    import(distEntry("packages/mcp-transport/dist/index.js")),
    import(distEntry("packages/mcp-transport/dist/stdio/index.js")),
    import(distEntry("packages/mcp-transport/dist/http/index.js")),
    import(distEntry("packages/mcp-client/dist/index.js")),
    import(sdkEntry("client/index.js")),
    import(sdkEntry("client/stdio.js")),
    import(distEntry("packages/loop/dist/index.js")),
    import(zodEntry()),
    import(distEntry("packages/mcp-testing/dist/index.js")),
  ]);
  if (!existsSync(BENCH_SERVER_PATH)) {
    throw new Error(`${BENCH_SERVER_PATH} is missing: build @agent/mcp-testing first.`);
  }
  return {
    ToolRegistry: tools.ToolRegistry,
    executeToolCall: tools.executeToolCall,
    NULL_EVENT_SINK: tools.NULL_EVENT_SINK,
    createEventClock: tools.createEventClock,
    serializeForAudit: tools.serializeForAudit,
    DEFAULT_AUDIT_LIMITS: tools.DEFAULT_AUDIT_LIMITS,
    mapCallResult: client.mapCallResult,
    FakeTransport: testing.FakeTransport,
    fakeServer: testing.fakeServer,
    createJsonlEventSink: toolsNode.createJsonlEventSink,
    createPolicyGate: policy.createPolicyGate,
    definePolicy: policy.definePolicy,
    InMemoryApprovalStore: policy.InMemoryApprovalStore,
    createBwrapSandbox: bwrap.createBwrapSandbox,
    MCP_ERROR_CODES: transport.MCP_ERROR_CODES,
    createStdioTransport: stdio.createStdioTransport,
    StdioProcessTransport: stdio.StdioProcessTransport,
    createStreamableHttpTransport: http.createStreamableHttpTransport,
    McpServerConnection: client.McpServerConnection,
    listTools: client.listTools,
    initializeServer: client.initializeServer,
    toLocalTool: client.toLocalTool,
    SdkClient: sdkClient.Client,
    SdkStdioClientTransport: sdkStdio.StdioClientTransport,
    defineTool: tools.defineTool,
    startRun: loop.startRun,
    InMemoryRunStore: loop.InMemoryRunStore,
    z: zod.z,
  };
}
