// The prefixes below are the names `@agent/mcp-client` gives a server's built-in tools
// (`mcp_server__<server>__<action>`: resources and prompts) and the CLI its sampling requests
// (`mcp_sampling__<server>`) and forms (`mcp_elicitation__<server>`). The policy imports neither, so
// it spells them here; a test in apps/cli checks that the names agree. A new kind of server
// offering governed by rules belongs here.

/** How a tool name that speaks for a server (but is none of its tools) begins, before the server's name. */
const SERVER_OFFERING_PREFIXES: readonly string[] = Object.freeze([
  "mcp_server__",
  "mcp_sampling__",
  "mcp_elicitation__",
]);

/**
 * For a tool through which a server offers something besides its tools (its resources, prompts,
 * sampling requests, forms), the name pattern of all that server's tools, `mcp__<server>__*`; undefined for
 * any other tool. A rule matching that pattern names the whole server, so its deny and ask reach
 * these tools too.
 */
export function serverToolsPatternOf(toolName: string): string | undefined {
  for (const prefix of SERVER_OFFERING_PREFIXES) {
    if (!toolName.startsWith(prefix)) continue;
    const rest = toolName.slice(prefix.length);
    // Server names never contain "__": what precedes the first one is the server.
    const server = rest.split("__", 1)[0] ?? "";
    return server === "" ? undefined : `mcp__${server}__*`;
  }
  return undefined;
}
