// `--only=eras` (issue 26): our transport, in the era it negotiates, against the raw official client of
// that same era, over the same 2026-capable server (the SDK v2 server fixture of mcp-client's tests):
//   2025-11-25 (the handshake)  @modelcontextprotocol/sdk 1.x Client
//   2026-07-28 (stateless)      @modelcontextprotocol/client 2.x Client, pinned to 2026-07-28
// Over stdio each client gets a server process of its own (as in the calls suite); over Streamable
// HTTP every client talks to one server process, which serves each request on its own. Both raw
// clients run over both wires, so a row exists for whichever era our transport negotiates there;
// the raw client of the other era is context. Interleaved rounds and medians: see calls.mjs.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchCalls } from "./calls.mjs";
import { REPO_ROOT } from "./modules.mjs";
import { onServerCpu } from "./placement.mjs";

const FIXTURE = join(REPO_ROOT, "packages/mcp-client/test/fixtures/sdk-v2-server.mjs");
const ECHO = { name: "echo", arguments: { text: "hello" } };
// The fixture reports its port on stderr once it listens; a slower start means a broken machine.
const LISTEN_TIMEOUT_MS = 10_000;
const NEVER = new AbortController().signal;

/** Starts the fixture over HTTP on a free loopback port; resolves with its MCP endpoint. */
function startHttpFixture(cleanup) {
  const { command, args } = onServerCpu({ command: process.execPath, args: [FIXTURE, "http"] });
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  cleanup.add(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  }, child.pid);
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`the SDK v2 fixture did not listen: ${seen}`)),
      LISTEN_TIMEOUT_MS,
    );
    child.once("exit", (code) => reject(new Error(`the SDK v2 fixture exited (${code}): ${seen}`)));
    child.stderr.on("data", (chunk) => {
      seen = `${seen}${chunk}`.slice(-2000);
      const port = /LISTENING (\d+)/.exec(seen)?.[1];
      if (!port) return;
      clearTimeout(timer);
      resolve(`http://127.0.0.1:${port}/mcp`);
    });
  });
}

const stdioServer = () => onServerCpu({ command: process.execPath, args: [FIXTURE, "stdio"], env: {} });

/** The revision our transport negotiated: the stateless one when it says so, else the handshake's answer. */
function negotiatedRevision(transport, initializeResult) {
  const wire = transport.wireProtocol?.();
  return wire?.era === "stateless" ? wire.protocolVersion : initializeResult.protocolVersion;
}

async function openOurs(modules, cleanup, wire, url) {
  const transport =
    wire === "http"
      ? modules.createStreamableHttpTransport({ url })
      : modules.createStdioTransport(stdioServer());
  cleanup.add(() => transport.close(), transport.pid?.());
  const initialized = await modules.initializeServer(transport, { signal: NEVER });
  const call = async () => {
    const response = await transport.request("tools/call", ECHO, NEVER);
    if (!response.ok) throw new Error(`transport request failed: ${JSON.stringify(response.error)}`);
  };
  return { call, negotiated: negotiatedRevision(transport, initialized) };
}

async function openRaw(rawClients, cleanup, era, wire, url) {
  const client = await rawClients.openEraClient(era, wire === "http" ? { url } : stdioServer());
  cleanup.add(() => client.close(), client.pid);
  return { call: () => client.call(ECHO.name, ECHO.arguments), negotiated: client.negotiated };
}

/**
 * Measures, per wire (stdio, http), our transport and both raw clients; returns benchCalls' results
 * by kind (`ours.stdio`, `handshake.http`, ...) and the revision each kind negotiated.
 */
export async function benchEras(modules, cleanup, { progress, calls }) {
  const rawClients = await import(pathToFileURL(join(REPO_ROOT, "tests/bench/eras.mjs")).href);
  progress("eras: starting the SDK v2 server fixture over HTTP, and one over stdio per client");
  const url = await startHttpFixture(cleanup);
  const clients = {};
  for (const wire of ["stdio", "http"]) {
    clients[`ours.${wire}`] = await openOurs(modules, cleanup, wire, url);
    for (const era of ["handshake", "stateless"]) {
      clients[`${era}.${wire}`] = await openRaw(rawClients, cleanup, era, wire, url);
    }
  }
  const callers = Object.fromEntries(Object.entries(clients).map(([kind, client]) => [kind, client.call]));
  const results = await benchCalls(callers, (message) => progress(message.replace(/^calls/, "eras")), calls);
  const negotiated = Object.fromEntries(
    Object.entries(clients).map(([kind, client]) => [kind, client.negotiated]),
  );
  return {
    results,
    negotiated,
    eraVersions: rawClients.ERA_VERSIONS,
    concurrentCalls: calls.concurrentCalls,
  };
}

/**
 * The table's rows: per wire, our transport against the raw client of the era it negotiated
 * (latency and throughput targeted: at or under the raw client), the CPU per call and the raw client
 * of the other era as context.
 */
export function eraRows({ results, negotiated, eraVersions, concurrentCalls }, row, formatMs, formatRate) {
  const rows = [];
  for (const wire of ["stdio", "http"]) {
    const ours = results[`ours.${wire}`];
    const revision = negotiated[`ours.${wire}`];
    const sameEra = revision === eraVersions.stateless ? "stateless" : "handshake";
    const otherEra = sameEra === "stateless" ? "handshake" : "stateless";
    const raw = results[`${sameEra}.${wire}`];
    const other = results[`${otherEra}.${wire}`];
    const label = `${revision} over ${wire}, vs the raw client of that era`;
    const otherLabel = `${wire}: raw ${negotiated[`${otherEra}.${wire}`]} client vs raw ${revision} client`;
    rows.push(
      row(`${label}: transport latency`, ours.latencyMs, raw.latencyMs, formatMs, { target: 1 }),
      row(`${label}: transport client CPU/call`, ours.cpuMsPerCall, raw.cpuMsPerCall, formatMs),
      row(
        `${label}: transport throughput, ${concurrentCalls} concurrent`,
        ours.concurrentPerSecond,
        raw.concurrentPerSecond,
        formatRate,
        {
          better: "higher",
          target: 1,
        },
      ),
      row(`${otherLabel}, latency`, other.latencyMs, raw.latencyMs, formatMs),
      row(`${otherLabel}, throughput`, other.concurrentPerSecond, raw.concurrentPerSecond, formatRate, {
        better: "higher",
      }),
    );
  }
  return rows;
}
