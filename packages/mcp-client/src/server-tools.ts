import {
  type GroupChange,
  type JsonValue,
  type RegisteredTool,
  type ToolRegistry,
  ToolsError,
} from "@agent/tools";
import type { McpToolDescriptor, RejectedTool, ToolListing } from "./discovery.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import { copyWellFormedJson, sameJson } from "./records.js";
import { mcpToolGroup, type RemoteToolPort, type ToLocalToolOptions, toLocalTool } from "./tool-mapping.js";

/**
 * The tools one discovery mapped, by remote name, each with a private copy of the definition it came
 * from (none when the definition cannot be copied as JSON: such a tool is never reused).
 */
export type MappedTools = ReadonlyMap<string, MappedTool>;

interface MappedTool {
  definition: McpToolDescriptor | undefined;
  tool: RegisteredTool;
}

/** One server's listing, sorted into what registers, what was rejected and what the config excluded. */
export interface ServerToolSet {
  tools: RegisteredTool[];
  rejected: RejectedTool[];
  excluded: string[];
  /** What this listing mapped: pass it to the next discovery of the same connection. */
  mapped: MappedTools;
}

/**
 * Maps every listed tool the filter includes; a tool that cannot be mapped is rejected with its reason.
 * A tool whose definition is unchanged since `previous` (the last discovery by the same caller) is
 * reused as it is: converting it again would give an equal tool with the same fingerprint.
 */
export function buildServerTools(
  listing: ToolListing,
  options: {
    include: (remoteName: string) => boolean;
    /** The port every mapped tool calls its server through. */
    server: RemoteToolPort;
    /** What the last discovery mapped; unchanged tools are reused. */
    previous?: MappedTools;
    /** See {@link ToLocalToolOptions.serverIdentity}. */
    serverIdentity?: JsonValue;
  },
): ServerToolSet {
  const { include, server, previous = new Map(), serverIdentity } = options;
  const mapped = new Map<string, MappedTool>();
  const set: ServerToolSet = { tools: [], rejected: [...listing.rejected], excluded: [], mapped };
  for (const descriptor of listing.tools) {
    if (!include(descriptor.remoteName)) {
      set.excluded.push(descriptor.remoteName);
      continue;
    }
    const known = previous.get(descriptor.remoteName);
    if (known?.definition && sameDefinition(known.definition, descriptor)) {
      set.tools.push(known.tool);
      mapped.set(descriptor.remoteName, known);
      continue;
    }
    const result = toLocalTool(descriptor, server, serverIdentity === undefined ? {} : { serverIdentity });
    if (!result.ok) {
      set.rejected.push({ remoteName: descriptor.remoteName, reason: result.reason });
      continue;
    }
    set.tools.push(result.tool);
    // A copy: an in-process server that hands out its own objects and changes them later must not
    // change what the next listing is compared with.
    mapped.set(descriptor.remoteName, { definition: copyWellFormedJson(descriptor), tool: result.tool });
  }
  return set;
}

/**
 * Whether two descriptors agree on everything {@link toLocalTool} reads: equal JSON, equal tool. Keys
 * are compared in order, as their JSON text would be: a listing that merely reorders keys misses the
 * reuse and is converted again, to the same fingerprint. Compared in place rather than as JSON text,
 * which cost a string of every definition at every discovery.
 */
function sameDefinition(before: McpToolDescriptor, now: McpToolDescriptor): boolean {
  return (
    before.server === now.server &&
    before.remoteName === now.remoteName &&
    before.description === now.description &&
    before.title === now.title &&
    sameJson(before.inputSchema, now.inputSchema) &&
    sameJson(before.outputSchema, now.outputSchema) &&
    sameJson(before.annotations, now.annotations)
  );
}

/**
 * Replaces a server's group in the registry atomically; a name taken outside the group (a local
 * `read_file`, another server's tool) throws `tool_name_clash` and leaves the registry as it was.
 */
export function replaceServerGroup(
  registry: ToolRegistry,
  server: string,
  tools: readonly RegisteredTool[],
): GroupChange {
  try {
    return registry.replaceGroup(mcpToolGroup(server), tools);
  } catch (error) {
    if (ToolsError.isInstance(error) && error.code === "duplicate_tool") {
      throw new McpClientError(
        MCP_CLIENT_ERROR_CODES.toolNameClash,
        `Server "${server}" cannot register its tools: ${error.message}`,
        { server, cause: error },
      );
    }
    throw error;
  }
}
