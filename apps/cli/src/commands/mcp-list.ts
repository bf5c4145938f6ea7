import type { McpServerSnapshot } from "@agent/mcp-client";
import { resolvePolicyDecision } from "@agent/policy";
import { EXIT_CODES, type ExitCode } from "../exit-codes.js";
import { packageSummaryOf } from "../packages/package-cache.js";
import type { Runtime } from "../runtime/runtime.js";
import type { IsolationReport } from "../runtime/sandboxes.js";
import { type ServerAuthState, serverAuthState } from "../runtime/server-auth.js";
import { type ServerFailureSources, serverFailureDetails } from "../runtime/server-failure-details.js";
import { describeInstalled } from "../terminal/install-progress.js";
import { type CliIo, safeLine, styleFor, writeJson, writeLine } from "../terminal/io.js";
import { describeServerFailure, failureDetailLines } from "../terminal/server-failure.js";
import { formatTable, plural, terminalWidth, truncate } from "../terminal/table.js";
import { endIfInterrupted } from "./interrupted-listing.js";

/** What `agent mcp list` needs: each server connected, how it is isolated, trusted, authorized and installed. */
export type ServerListingDeps = Pick<
  Runtime,
  "connect" | "closeServers" | "authProviders" | "credentials" | "flows" | "policy"
> &
  ServerFailureSources;

/** `agent mcp list`: connects every enabled server and lists its tools, their effect and the policy's decision. */
export async function mcpListCommand(
  runtime: ServerListingDeps,
  io: CliIo,
  options: { json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  await runtime.connect(undefined, signal);
  const interrupted = await endIfInterrupted(runtime, io, signal);
  if (interrupted !== undefined) return interrupted;
  const snapshots = runtime.connections.map((connection) => connection.snapshot());
  const auth = await authStates(runtime);
  if (options.json) writeJson(io, { servers: snapshots.map((snapshot) => toJson(runtime, snapshot, auth)) });
  else printServers(runtime, io, snapshots, auth);
  return snapshots.every((snapshot) => snapshot.state === "ready") ? EXIT_CODES.ok : EXIT_CODES.failed;
}

function isolationOf(runtime: ServerListingDeps, name: string): IsolationReport | undefined {
  const server = runtime.config.servers.find((candidate) => candidate.name === name);
  return server ? runtime.sandboxes.isolationOf(server) : undefined;
}

/** Each HTTP server's OAuth state (`none`, `authorized`, `expired`, `login required`), by name. */
async function authStates(runtime: ServerListingDeps): Promise<Map<string, ServerAuthState>> {
  const states = new Map<string, ServerAuthState>();
  for (const server of runtime.config.servers) {
    if (server.type === "stdio" || server.disabled) continue;
    const provider = runtime.authProviders.get(server.name);
    states.set(server.name, await serverAuthState(server, provider, runtime.credentials));
  }
  return states;
}

function toJson(runtime: ServerListingDeps, snapshot: McpServerSnapshot, auth: Map<string, ServerAuthState>) {
  return {
    name: snapshot.name,
    status: snapshot.state === "ready" ? "ready" : "failed",
    // Only for HTTP servers: whether OAuth is in use and how it stands (never a token).
    auth: auth.get(snapshot.name) ?? null,
    isolation: isolationOf(runtime, snapshot.name)?.isolation ?? "none",
    // Whether the server's content may steer a run (the flow guard); set by the entry's "trust".
    trust: runtime.flows.trustOf(snapshot.name),
    protocolVersion: snapshot.protocolVersion ?? null,
    // `handshake` (2025-11-25 and older) or `stateless` (2026-07-28): how the client talks to it.
    protocolEra: snapshot.protocolEra ?? null,
    // A package-runner server's package as the cache holds it: exact versions and integrity.
    package: cachedPackageOf(runtime, snapshot.name) ?? null,
    error:
      snapshot.state === "ready"
        ? null
        : {
            ...(snapshot.error ?? { code: snapshot.state, message: `server is ${snapshot.state}` }),
            ...serverFailureDetails(runtime, snapshot.name),
          },
    tools: snapshot.tools.map(({ name, remoteName, effect, description }) => ({
      name,
      remoteName,
      effect,
      // What the gate would decide before any approval: allow, ask or deny.
      policy: resolvePolicyDecision(runtime.policy(), { name, effect }).decision,
      description,
    })),
    rejected: snapshot.rejected,
  };
}

function printServers(
  runtime: ServerListingDeps,
  io: CliIo,
  snapshots: McpServerSnapshot[],
  auth: Map<string, ServerAuthState>,
): void {
  const style = styleFor(io.stdout, io.env);
  if (runtime.config.servers.length === 0) writeLine(io.stdout, "No MCP servers are configured.");
  for (const snapshot of snapshots) {
    // Every server-provided field is one line of its own row: none can forge another row or server.
    const name = style.bold(safeLine(snapshot.name));
    const isolation = isolationOf(runtime, snapshot.name);
    const isolationLine = isolation
      ? `  isolation: ${isolation.isolation === "bwrap" ? style.green(safeLine(isolation.detail)) : style.yellow(safeLine(isolation.detail))}`
      : undefined;
    const authState = auth.get(snapshot.name);
    const authText = authState
      ? `  auth ${authState === "login required" ? style.yellow(authState) : authState}`
      : "";
    if (snapshot.state !== "ready") {
      writeLine(
        io.stdout,
        `${name}  ${style.red("failed")}${authText}  ${describeTrust(runtime, snapshot.name, style)}  ${describeServerFailure(snapshot)}`,
      );
      if (isolationLine) writeLine(io.stdout, isolationLine);
      writePackageLine(runtime, io, snapshot.name);
      for (const line of failureDetailLines(serverFailureDetails(runtime, snapshot.name))) {
        writeLine(
          io.stdout,
          line.startsWith("sandbox:") ? `  ${style.yellow(line)}` : style.dim(`  ${line}`),
        );
      }
      writeLine(io.stdout);
      continue;
    }
    writeLine(
      io.stdout,
      `${name}  ${style.green("ready")}  protocol ${safeLine(snapshot.protocolVersion ?? "?")}${snapshot.protocolEra ? ` (${snapshot.protocolEra})` : ""}  ${plural(snapshot.tools.length, "tool")}${authText}  ${describeTrust(runtime, snapshot.name, style)}`,
    );
    if (isolationLine) writeLine(io.stdout, isolationLine);
    writePackageLine(runtime, io, snapshot.name);
    const width = terminalWidth(io.stdout, io.env);
    const rows = snapshot.tools.map((tool) => {
      const decision = resolvePolicyDecision(runtime.policy(), {
        name: tool.name,
        effect: tool.effect,
      }).decision;
      return [safeLine(tool.name), tool.effect, decision, safeLine(truncate(tool.description, width ?? 60))];
    });
    if (rows.length > 0) {
      for (const line of formatTable([["TOOL", "EFFECT", "POLICY", "DESCRIPTION"].map(style.dim), ...rows], {
        indent: "  ",
        width,
      })) {
        writeLine(io.stdout, line);
      }
    }
    for (const { remoteName, reason } of snapshot.rejected) {
      writeLine(io.stdout, `  ${style.yellow("rejected")} ${safeLine(remoteName)}: ${safeLine(reason)}`);
    }
    if (snapshot.excluded.length > 0) {
      writeLine(io.stdout, style.dim(`  excluded by config: ${safeLine(snapshot.excluded.join(", "))}`));
    }
    writeLine(io.stdout);
  }
  for (const server of runtime.config.servers.filter((candidate) => candidate.disabled)) {
    writeLine(
      io.stdout,
      `${style.bold(safeLine(server.name))}  ${style.dim("disabled in the configuration")}`,
    );
  }
}

/** The server's trust label as `mcp list` shows it: untrusted content taints the runs that read it. */
function describeTrust(
  runtime: ServerListingDeps,
  server: string,
  style: ReturnType<typeof styleFor>,
): string {
  return runtime.flows.trustOf(server) === "trusted" ? style.green("trusted") : style.yellow("untrusted");
}

function cachedPackageOf(runtime: ServerListingDeps, name: string) {
  const server = runtime.config.servers.find((candidate) => candidate.name === name);
  if (server?.type !== "stdio") return undefined;
  const cached = runtime.packages.cached(server);
  return cached ? packageSummaryOf(cached) : undefined;
}

/** `  package: name@1.2.3 (sha512-…), from the package cache` under a package-runner server. */
function writePackageLine(runtime: ServerListingDeps, io: CliIo, name: string): void {
  const server = runtime.config.servers.find((candidate) => candidate.name === name);
  if (server?.type !== "stdio") return;
  const cached = runtime.packages.cached(server);
  if (cached)
    writeLine(
      io.stdout,
      `  package: ${describeInstalled(cached)}, from the package cache (refresh: agent mcp refresh ${safeLine(name)})`,
    );
}
