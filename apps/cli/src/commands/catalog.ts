import { type McpServerConnection, serverToolName } from "@agent/mcp-client";
import type { JsonValue } from "@agent/tools";
import { EXIT_CODES, type ExitCode, usageError } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, safeLine, styleFor, writeJson, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";
import { formatTable, plural, terminalWidth, truncate } from "../terminal/table.js";
import { type CallDeps, startGovernedCall } from "./call.js";
import { endIfInterrupted } from "./interrupted-listing.js";

/** What listing a catalog needs: the servers' connections, connected (and closed on Ctrl-C). */
export type CatalogListingDeps = Pick<Runtime, "connections" | "connect" | "closeServers">;

/**
 * `agent resources list [server]`: connects the server (or every enabled one) and lists the resources
 * and templates it advertised at discovery. Listing what discovery read sends nothing more to the
 * server; reading one goes through the gate (`resources read`).
 */
export async function resourcesListCommand(
  runtime: CatalogListingDeps,
  io: CliIo,
  options: { server: string | undefined; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const connections = await connectNamed(runtime, options.server, signal);
  const interrupted = await endIfInterrupted(runtime, io, signal);
  if (interrupted !== undefined) return interrupted;
  if (options.json) {
    writeJson(io, {
      servers: connections.map((connection) => ({
        ...status(connection),
        resources: connection.resources(),
        resourceTemplates: connection.resourceTemplates(),
        rejected: connection.snapshot().catalog.rejected.filter((entry) => entry.kind !== "prompt"),
      })),
    });
  } else {
    const style = styleFor(io.stdout, io.env);
    for (const connection of connections) {
      if (!printHeader(io, connection, plural(connection.resources().length, "resource"))) continue;
      const rows = [
        ...connection
          .resources()
          .map((resource) => [
            safeLine(resource.uri),
            safeLine(resource.mimeType ?? ""),
            safeLine(truncate(resource.title ?? resource.name, 40)),
          ]),
        ...connection
          .resourceTemplates()
          .map((template) => [
            safeLine(template.uriTemplate),
            safeLine(template.mimeType ?? ""),
            `${safeLine(truncate(template.title ?? template.name, 40))} ${style.dim("(template)")}`,
          ]),
      ];
      if (rows.length > 0) printRows(io, ["URI", "MIME", "NAME"], rows);
      writeLine(io.stdout);
    }
  }
  return connections.every((connection) => connection.state === "ready") ? EXIT_CODES.ok : EXIT_CODES.failed;
}

/** `agent prompts list`: connects every enabled server and lists the prompts each offers, with their arguments. */
export async function promptsListCommand(
  runtime: CatalogListingDeps,
  io: CliIo,
  options: { json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const connections = await connectNamed(runtime, undefined, signal);
  const interrupted = await endIfInterrupted(runtime, io, signal);
  if (interrupted !== undefined) return interrupted;
  if (options.json) {
    writeJson(io, {
      servers: connections.map((connection) => ({
        ...status(connection),
        prompts: connection.prompts(),
        rejected: connection.snapshot().catalog.rejected.filter((entry) => entry.kind === "prompt"),
      })),
    });
  } else {
    for (const connection of connections) {
      if (!printHeader(io, connection, plural(connection.prompts().length, "prompt"))) continue;
      const rows = connection
        .prompts()
        .map((prompt) => [
          safeLine(prompt.name),
          safeLine(
            prompt.arguments.map((argument) => `${argument.name}${argument.required ? "" : "?"}`).join(" "),
          ),
          safeLine(truncate(prompt.description ?? prompt.title ?? "", 60)),
        ]);
      if (rows.length > 0) printRows(io, ["PROMPT", "ARGUMENTS", "DESCRIPTION"], rows);
      writeLine(io.stdout);
    }
  }
  return connections.every((connection) => connection.state === "ready") ? EXIT_CODES.ok : EXIT_CODES.failed;
}

/** `agent resources read <server> <uri>`: one governed call of the server's `read_resource` tool. */
export function resourcesReadCommand(
  runtime: CallDeps,
  io: CliIo,
  options: { server: string; uri: string; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const toolName = serverToolName(options.server, "read_resource");
  return startGovernedCall(
    runtime,
    io,
    { toolName, input: { uri: options.uri }, json: options.json },
    signal,
  );
}

/** `agent prompts get <server> <name> [--arg k=v]...`: one governed call of the server's `get_prompt` tool. */
export function promptsGetCommand(
  runtime: CallDeps,
  io: CliIo,
  options: { server: string; name: string; args: Record<string, string>; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const toolName = serverToolName(options.server, "get_prompt");
  const input: JsonValue =
    Object.keys(options.args).length === 0
      ? { name: options.name }
      : { name: options.name, arguments: options.args };
  return startGovernedCall(runtime, io, { toolName, input, json: options.json }, signal);
}

async function connectNamed(
  runtime: Pick<Runtime, "connections" | "connect">,
  server: string | undefined,
  signal: AbortSignal,
): Promise<McpServerConnection[]> {
  const connections =
    server === undefined
      ? runtime.connections
      : runtime.connections.filter((connection) => connection.name === server);
  if (server !== undefined && connections.length === 0) {
    throw usageError(`No enabled MCP server named "${safeLine(server)}" is configured.`);
  }
  await runtime.connect(
    connections.map((connection) => connection.name),
    signal,
  );
  return connections;
}

function status(connection: McpServerConnection) {
  const ready = connection.state === "ready";
  return {
    name: connection.name,
    status: ready ? "ready" : "failed",
    error: ready
      ? null
      : (connection.error ?? { code: connection.state, message: `server is ${connection.state}` }),
  };
}

/** The server's line; false (after saying why) when it is not ready. */
function printHeader(io: CliIo, connection: McpServerConnection, count: string): boolean {
  const style = styleFor(io.stdout, io.env);
  const name = style.bold(safeLine(connection.name));
  if (connection.state !== "ready") {
    writeLine(io.stdout, `${name}  ${style.red("failed")}  ${describeServerFailure(connection)}`);
    writeLine(io.stdout);
    return false;
  }
  writeLine(io.stdout, `${name}  ${style.green("ready")}  ${count}`);
  return true;
}

function printRows(io: CliIo, header: string[], rows: string[][]): void {
  const style = styleFor(io.stdout, io.env);
  const width = terminalWidth(io.stdout, io.env);
  for (const line of formatTable([header.map(style.dim), ...rows], { indent: "  ", width })) {
    writeLine(io.stdout, line);
  }
}
