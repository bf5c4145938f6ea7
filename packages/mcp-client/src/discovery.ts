import type { McpRequestContext, McpTransport } from "@agent/mcp-transport";
import type { JsonValue } from "@agent/tools";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import { type CacheHints, readCacheHints } from "./list-freshness.js";
import { remoteToolNameProblem } from "./names.js";
import { listAllPages } from "./paginate.js";
import { LATEST_PROTOCOL_VERSION, type ProtocolFeatures, protocolFeatures } from "./protocol-version.js";
import { describeValue, isRecord } from "./records.js";

/** A remote tool as the server declared it, validated for shape but not yet converted. */
export interface McpToolDescriptor {
  server: string;
  remoteName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | undefined;
  /** The server's annotations (`readOnlyHint`, `title`, ...): unverified hints, never trusted. */
  annotations: Record<string, JsonValue> | undefined;
  title: string | undefined;
}

/** A tool the server listed that will not be registered, and why. */
export interface RejectedTool {
  remoteName: string;
  reason: string;
}

/** The outcome of {@link listTools}. */
export interface ToolListing {
  tools: McpToolDescriptor[];
  rejected: RejectedTool[];
  pages: number;
  /** The pages' caching hints combined (2026-07-28: how long the listing may be taken as current). */
  cache: CacheHints;
}

/** Options of {@link listTools}. */
export interface ListToolsOptions {
  /** More pages than this is treated as a broken server (default 1,000). */
  maxPages?: number;
  /** More tools than this, in all pages together, is treated as a broken server (default 10,000). */
  maxTools?: number;
  /**
   * More than this many bytes of results, in all pages together, fails the listing with
   * `mcp_tools_list_too_large` (default 32 MiB): a server cannot grow discovery's memory without bound.
   * Sizes are measured as the JSON text of each page would be, counting a character as one byte.
   */
  maxBytes?: number;
  /** What the negotiated protocol version defines (default: the latest version's features). */
  features?: ProtocolFeatures;
}

/** The default cap on `tools/list` pages. */
export const DEFAULT_MAX_PAGES = 1_000;

/** The default cap on the number of tools one server may list: memory for discovery stays bounded. */
export const DEFAULT_MAX_TOOLS = 10_000;

/** The default byte budget of one server's whole `tools/list` (all pages together). */
export const DEFAULT_MAX_LISTING_BYTES = 32 * 1024 * 1024;

/**
 * Lists a server's tools, following `nextCursor` to the end. Each entry is validated: a malformed one
 * is rejected with a visible reason while the others are kept; a repeated cursor, too many pages, or
 * two tools with one name fail the whole listing. Fields the negotiated version does not define
 * (`features`) are dropped from each entry, as if the server had not sent them.
 */
export async function listTools(
  server: string,
  transport: McpTransport,
  context: McpRequestContext,
  options: ListToolsOptions = {},
): Promise<ToolListing> {
  const { entries, pages, cache } = await listAllPages(transport, context, {
    server,
    method: "tools/list",
    key: "tools",
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    maxItems: options.maxTools ?? DEFAULT_MAX_TOOLS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_LISTING_BYTES,
    failedCode: "mcp_tools_list_failed",
    invalidCode: "invalid_tools_list",
    tooLargeCode: "mcp_tools_list_too_large",
  });
  const features = options.features ?? protocolFeatures(LATEST_PROTOCOL_VERSION);
  return {
    ...readEntries(
      server,
      entries.map((entry) => withinVersion(entry, features)),
    ),
    pages,
    // tools/list is not optional: an answered listing always has hints.
    cache: cache ?? readCacheHints(undefined),
  };
}

/**
 * An entry without the fields its protocol version does not define; the entry itself when it has
 * none of them (the common case, and no copy of every tool of a listing).
 */
function withinVersion(entry: unknown, features: ProtocolFeatures): unknown {
  if (!isRecord(entry)) return entry;
  const undefinedHere =
    (!features.toolAnnotations && entry.annotations !== undefined) ||
    (!features.structuredContent && entry.outputSchema !== undefined) ||
    (!features.toolTitle && entry.title !== undefined);
  if (!undefinedHere) return entry;
  const { annotations, outputSchema, title, ...rest } = entry;
  return {
    ...rest,
    ...(features.toolAnnotations && annotations !== undefined ? { annotations } : {}),
    ...(features.structuredContent && outputSchema !== undefined ? { outputSchema } : {}),
    ...(features.toolTitle && title !== undefined ? { title } : {}),
  };
}

function readEntries(
  server: string,
  entries: unknown[],
): { tools: McpToolDescriptor[]; rejected: RejectedTool[] } {
  const tools: McpToolDescriptor[] = [];
  const rejected: RejectedTool[] = [];
  const names = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const read = readEntry(server, entry);
    if ("reason" in read) {
      rejected.push({ remoteName: read.remoteName ?? `#${index}`, reason: read.reason });
      continue;
    }
    if (names.has(read.remoteName)) {
      throw new McpClientError(
        MCP_CLIENT_ERROR_CODES.duplicateRemoteTool,
        `The server listed two tools named "${read.remoteName}".`,
        {
          server,
        },
      );
    }
    names.add(read.remoteName);
    tools.push(read);
  }
  return { tools, rejected };
}

function readEntry(
  server: string,
  entry: unknown,
): McpToolDescriptor | { remoteName?: string; reason: string } {
  if (!isRecord(entry)) return { reason: `the entry is ${describeValue(entry)}, not an object` };
  const { name } = entry;
  if (typeof name !== "string") return { reason: `the tool name is ${describeValue(name)}, not a string` };
  const nameProblem = remoteToolNameProblem(server, name);
  if (nameProblem) return { remoteName: name, reason: `invalid_tool_name: ${nameProblem}` };
  if (entry.description !== undefined && typeof entry.description !== "string") {
    return {
      remoteName: name,
      reason: `invalid_tool_description: ${describeValue(entry.description)} is not a string`,
    };
  }
  if (!isRecord(entry.inputSchema)) {
    return {
      remoteName: name,
      reason: `unsupported_input_schema: inputSchema is ${describeValue(entry.inputSchema)}`,
    };
  }
  if (entry.outputSchema !== undefined && !isRecord(entry.outputSchema)) {
    return {
      remoteName: name,
      reason: `unsupported_output_schema: outputSchema is ${describeValue(entry.outputSchema)}`,
    };
  }
  if (entry.annotations !== undefined && !isRecord(entry.annotations)) {
    return {
      remoteName: name,
      reason: `invalid_annotations: ${describeValue(entry.annotations)} is not an object`,
    };
  }
  return {
    server,
    remoteName: name,
    description: entry.description ?? "",
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    annotations: entry.annotations as Record<string, JsonValue> | undefined,
    title: typeof entry.title === "string" ? entry.title : undefined,
  };
}
