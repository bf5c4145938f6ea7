// Discovery of a server with many tools served in pages: the SDK's listing against ours, which also
// validates, converts every schema to zod and registers the tools as one group. Two pieces of ours
// are timed alone as well, to show where the time goes.
import { createConnection, openRawClient, openTransport } from "./clients.mjs";
import { median } from "./stats.mjs";

const SERVER = "bench_tools";
const NEVER = new AbortController().signal;

async function listAllRaw(client) {
  let cursor;
  let count = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

function expectCount(what, actual, expected) {
  if (actual !== expected) throw new Error(`${what} found ${actual} tools, expected ${expected}.`);
}

async function timed(work) {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * Returns median milliseconds of: `raw` (Client.listTools following nextCursor); `ours`, a first
 * discovery (listTools, then toLocalTool for every tool and registerAll into a fresh registry, as
 * McpServerConnection.start does after its handshake); `refresh` (McpServerConnection.refreshTools:
 * the same plus the group diff and events); and its pieces `listingOnly` and `convertOnly` (no I/O).
 * `firstStartMs` is one McpServerConnection.start, spawn and handshake included.
 */
export async function benchDiscovery(modules, cleanup, { events, progress, toolCount, pageSize, rounds }) {
  const serverEnv = { BENCH_TOOL_COUNT: String(toolCount), BENCH_PAGE_SIZE: String(pageSize) };
  progress(`discovery: starting 3 servers with ${toolCount} tools, ${pageSize} per page`);
  const raw = await openRawClient(modules, cleanup, serverEnv);
  const ours = await openTransport(modules, cleanup, serverEnv);
  const registry = new modules.ToolRegistry();
  const managed = createConnection(modules, cleanup, { name: SERVER, serverEnv, registry, events });
  const firstStartMs = await timed(() => managed.connection.start());
  const group = managed.connection.group;
  expectCount("McpServerConnection.start", registry.listGroup(group).length, toolCount);

  const listAll = async () => {
    const listing = await modules.listTools(SERVER, ours.transport, { signal: NEVER });
    expectCount("listTools", listing.tools.length, toolCount);
    return listing;
  };
  const convertAndRegister = (listing) => {
    const tools = listing.tools.map((descriptor) => {
      const mapped = modules.toLocalTool(descriptor, unusedCaller);
      if (!mapped.ok) throw new Error(`toLocalTool rejected ${descriptor.remoteName}: ${mapped.reason}`);
      return mapped.tool;
    });
    new modules.ToolRegistry().registerAll(tools);
  };
  const listed = await listAll();

  const variants = {
    raw: async () => expectCount("Client.listTools", await listAllRaw(raw.client), toolCount),
    ours: async () => convertAndRegister(await listAll()),
    refresh: async () => {
      await managed.connection.refreshTools();
      expectCount("refreshTools", registry.listGroup(group).length, toolCount);
    },
    listingOnly: async () => {
      await listAll();
    },
    convertOnly: async () => convertAndRegister(listed),
  };
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  progress("discovery: warming up");
  for (const name of names) await variants[name]();
  for (let round = 0; round < rounds; round += 1) {
    progress(`discovery: round ${round + 1}/${rounds}`);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(index + round) % names.length];
      samples[name].push(await timed(variants[name]));
    }
  }
  await Promise.all([raw.close(), ours.close(), managed.close()]);
  return {
    ...Object.fromEntries(names.map((name) => [name, median(samples[name])])),
    firstStartMs,
  };
}

// The converted tools are registered, never called.
async function unusedCaller() {
  throw new Error("not called in this benchmark");
}
