import { MAX_TOOL_NAME_LENGTH } from "@agent/tools";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";

/** Prefix of every tool that comes from an MCP server. */
export const MCP_TOOL_PREFIX = "mcp__";

const NAME_CHARACTERS = /^[a-zA-Z0-9_-]+$/;

/**
 * The longest server name accepted: it leaves room for `mcp__<server>__` plus a tool name of at
 * least 24 characters within the 64-character limit model APIs put on function names.
 */
export const MAX_SERVER_NAME_LENGTH = MAX_TOOL_NAME_LENGTH - MCP_TOOL_PREFIX.length - 2 - 24;

/** Why a server name is unusable, or undefined when it is fine. */
export function serverNameProblem(server: string): string | undefined {
  if (!NAME_CHARACTERS.test(server)) return "server names may contain only [a-zA-Z0-9_-]";
  // "a__b" + "c" and "a" + "b__c" would both be mcp__a__b__c: forbid the separator inside a server name.
  if (server.includes("__")) return 'server names may not contain "__", the separator of tool names';
  if (server.startsWith("_") || server.endsWith("_")) return 'server names may not start or end with "_"';
  if (server.length > MAX_SERVER_NAME_LENGTH)
    return `server names are at most ${MAX_SERVER_NAME_LENGTH} characters`;
  return undefined;
}

/** Throws `invalid_server_name` unless `server` can be part of tool names. */
export function assertServerName(server: string): void {
  const problem = serverNameProblem(server);
  if (problem)
    throw new McpClientError(
      MCP_CLIENT_ERROR_CODES.invalidServerName,
      `Server name ${JSON.stringify(server)}: ${problem}.`,
      {
        server,
      },
    );
}

/** Why a remote tool name cannot be mapped, or undefined when it can. */
export function remoteToolNameProblem(server: string, remoteName: string): string | undefined {
  if (remoteName.length === 0) return "the tool name is empty";
  if (!NAME_CHARACTERS.test(remoteName)) return "tool names may contain only [a-zA-Z0-9_-]";
  const length = mcpToolName(server, remoteName).length;
  if (length > MAX_TOOL_NAME_LENGTH) {
    return `the local name would be ${length} characters; model APIs accept at most ${MAX_TOOL_NAME_LENGTH}`;
  }
  return undefined;
}

/** The local, namespaced name of a remote tool: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, remoteName: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${remoteName}`;
}

/** Splits a namespaced name back into server and remote name, or undefined for a non-MCP name. */
export function parseMcpToolName(name: string): { server: string; remoteName: string } | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const separator = rest.indexOf("__");
  if (separator <= 0 || separator + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, separator), remoteName: rest.slice(separator + 2) };
}

/**
 * Prefix of the tools through which the model reaches a server's resources and prompts:
 * `mcp_server__<server>__read_resource`. No server tool can take such a name (those all begin with
 * `mcp__`), and since a server name cannot contain `__`, no two servers' names collide either.
 */
export const MCP_SERVER_TOOL_PREFIX = "mcp_server__";

/** The built-in actions on a server, each a tool named {@link serverToolName}. */
export type ServerToolAction = "list_resources" | "read_resource" | "get_prompt";

/** The name of a built-in tool acting on a server: `mcp_server__<server>__<action>`. */
export function serverToolName(server: string, action: ServerToolAction): string {
  return `${MCP_SERVER_TOOL_PREFIX}${server}__${action}`;
}

/** The server a tool name belongs to (a server's own tool or a built-in one), or undefined for a local tool. */
export function serverOfToolName(name: string): string | undefined {
  const remote = parseMcpToolName(name);
  if (remote) return remote.server;
  if (!name.startsWith(MCP_SERVER_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_SERVER_TOOL_PREFIX.length);
  const separator = rest.indexOf("__");
  return separator > 0 ? rest.slice(0, separator) : undefined;
}
