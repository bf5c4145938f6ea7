// Connecting several servers at once must cost about as much as the slowest of them alone: servers
// are independent, so nothing in the client may make one wait for another.
//
// Server i of n becomes ready (answers `initialize`) (i + 1) / n * slowestMs after its process
// started, which models servers that take a while to start (npx, a JVM, a remote login). Process
// start-up on a loaded machine is part of what is measured; it is overlapped by the readiness delay.
import { createConnection, openRawClient } from "./clients.mjs";
import { median } from "./stats.mjs";

function serverEnv(readyDelayMs, toolCount) {
  return { BENCH_READY_DELAY_MS: String(Math.round(readyDelayMs)), BENCH_TOOL_COUNT: String(toolCount) };
}

/** Starts connections (spawn, handshake, discovery, registration) and resolves with the wall time. */
async function startAll(modules, cleanup, events, servers) {
  const registry = new modules.ToolRegistry();
  const managed = servers.map(({ name, env }) =>
    createConnection(modules, cleanup, { name, serverEnv: env, registry, events }),
  );
  const started = performance.now();
  try {
    await Promise.all(managed.map(({ connection }) => connection.start()));
    return performance.now() - started;
  } finally {
    await Promise.all(managed.map(({ close }) => close()));
  }
}

/** The SDK's Client connecting to each server and listing its tools once, all at once. */
async function startAllRaw(modules, cleanup, servers) {
  const started = performance.now();
  const opened = [];
  try {
    await Promise.all(
      servers.map(async ({ env }) => {
        const raw = await openRawClient(modules, cleanup, env);
        opened.push(raw);
        await raw.client.listTools();
      }),
    );
    return performance.now() - started;
  } finally {
    await Promise.all(opened.map(({ close }) => close()));
  }
}

/**
 * Returns median milliseconds of: `together` (n McpServerConnections started at once) and
 * `slowestAlone` (the slowest of them started alone, the same way); for context, the same two with
 * the SDK's Client (connect and list tools once): `rawTogether` and `rawSlowestAlone`.
 */
export async function benchStartup(
  modules,
  cleanup,
  { events, progress, servers, slowestMs, toolCount, rounds },
) {
  const all = Array.from({ length: servers }, (_, index) => ({
    name: `server_${index + 1}`,
    env: serverEnv(((index + 1) / servers) * slowestMs, toolCount),
  }));
  const slowest = all[all.length - 1];
  const variants = {
    together: () => startAll(modules, cleanup, events, all),
    slowestAlone: () => startAll(modules, cleanup, events, [slowest]),
    rawTogether: () => startAllRaw(modules, cleanup, all),
    rawSlowestAlone: () => startAllRaw(modules, cleanup, [slowest]),
  };
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  progress(`servers: warming up (${servers} servers ready after up to ${slowestMs} ms each)`);
  await variants.together();
  for (let round = 0; round < rounds; round += 1) {
    progress(`servers: round ${round + 1}/${rounds}`);
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(index + round) % names.length];
      samples[name].push(await variants[name]());
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name])]));
}
