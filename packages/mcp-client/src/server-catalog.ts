import type { McpRequestContext, McpTransport } from "@agent/mcp-transport";
import { RE2JS } from "re2js";
import { DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_PAGES } from "./discovery.js";
import type { CacheHints } from "./list-freshness.js";
import { listAllPages } from "./paginate.js";
import { copyWellFormedJson, describeValue, isRecord } from "./records.js";

/** A resource a server listed (`resources/list`). */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** A resource template a server listed (`resources/templates/list`), RFC 6570. */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One argument of a prompt. */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt a server listed (`prompts/list`). */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments: McpPromptArgument[];
}

/** An entry of a listing that was left out, and why. */
export interface RejectedEntry {
  kind: "resource" | "resource_template" | "prompt";
  name: string;
  reason: string;
}

/** A checked listing of one kind, with what was left out. */
export interface CatalogListing<T> {
  entries: T[];
  rejected: RejectedEntry[];
  pages: number;
  /** The pages' caching hints combined (2026-07-28 `ttlMs`, `cacheScope`); none when the optional method is missing. */
  cache: CacheHints | undefined;
}

/** The default cap on resources, templates or prompts one server may list. */
export const DEFAULT_MAX_CATALOG_ENTRIES = 10_000;

// Longer URIs are not addresses a person or model means; they also bound the memory of a listing.
const MAX_URI_LENGTH = 8_192;

type Reader<T> = (entry: Record<string, unknown>) => T | string;

async function listChecked<T>(
  server: string,
  transport: McpTransport,
  context: McpRequestContext,
  method: string,
  key: string,
  kind: RejectedEntry["kind"],
  read: Reader<T>,
  optional = false,
): Promise<CatalogListing<T>> {
  const { entries, pages, cache } = await listAllPages(transport, context, {
    server,
    method,
    key,
    maxPages: DEFAULT_MAX_PAGES,
    maxItems: DEFAULT_MAX_CATALOG_ENTRIES,
    maxBytes: DEFAULT_MAX_LISTING_BYTES,
    failedCode: "mcp_list_failed",
    invalidCode: "invalid_list",
    tooLargeCode: "invalid_list",
    optional,
  });
  const listing: CatalogListing<T> = { entries: [], rejected: [], pages, cache };
  for (const [index, raw] of entries.entries()) {
    const entry = isRecord(raw) ? copyWellFormedJson(raw) : undefined;
    const name = isRecord(raw) && typeof raw.name === "string" ? raw.name : `#${index}`;
    const checked = entry ? read(entry) : `the entry is ${describeValue(raw)}, not well-formed JSON object`;
    if (typeof checked === "string") listing.rejected.push({ kind, name, reason: checked });
    else listing.entries.push(checked);
  }
  return listing;
}

/** Lists a server's resources, following pagination; malformed entries are rejected with a reason. */
export function listResources(
  server: string,
  transport: McpTransport,
  context: McpRequestContext,
): Promise<CatalogListing<McpResource>> {
  return listChecked(server, transport, context, "resources/list", "resources", "resource", (entry) => {
    const uri = uriProblem(entry.uri);
    if (uri) return uri;
    const common = readCommon(entry);
    if (typeof common === "string") return common;
    if (entry.size !== undefined && (typeof entry.size !== "number" || entry.size < 0)) {
      return "size must be a non-negative number";
    }
    return {
      uri: entry.uri as string,
      ...common,
      ...(typeof entry.size === "number" ? { size: entry.size } : {}),
    };
  });
}

/** Lists a server's resource templates, following pagination; a template this client cannot match is rejected. */
export function listResourceTemplates(
  server: string,
  transport: McpTransport,
  context: McpRequestContext,
): Promise<CatalogListing<McpResourceTemplate>> {
  return listChecked(
    server,
    transport,
    context,
    "resources/templates/list",
    "resourceTemplates",
    "resource_template",
    (entry) => {
      if (typeof entry.uriTemplate !== "string") return "uriTemplate must be a string";
      if (entry.uriTemplate.length > MAX_URI_LENGTH)
        return `uriTemplate is over ${MAX_URI_LENGTH} characters`;
      if (!templateMatcher(entry.uriTemplate)) return "uriTemplate is not a valid RFC 6570 template";
      const common = readCommon(entry);
      if (typeof common === "string") return common;
      return { uriTemplate: entry.uriTemplate, ...common };
    },
    // Servers with resources but no templates often do not implement the method at all.
    true,
  );
}

/** Lists a server's prompts, following pagination; malformed entries are rejected with a reason. */
export function listPrompts(
  server: string,
  transport: McpTransport,
  context: McpRequestContext,
): Promise<CatalogListing<McpPrompt>> {
  return listChecked(server, transport, context, "prompts/list", "prompts", "prompt", (entry) => {
    const common = readCommon(entry);
    if (typeof common === "string") return common;
    const { mimeType: _ignored, ...rest } = common;
    const args = entry.arguments ?? [];
    if (!Array.isArray(args)) return "arguments must be an array";
    const read: McpPromptArgument[] = [];
    for (const argument of args) {
      if (!isRecord(argument) || typeof argument.name !== "string" || argument.name === "") {
        return "every argument needs a name";
      }
      if (argument.description !== undefined && typeof argument.description !== "string") {
        return `argument "${argument.name}": description must be a string`;
      }
      read.push({
        name: argument.name,
        required: argument.required === true,
        ...(typeof argument.description === "string" ? { description: argument.description } : {}),
      });
    }
    return { ...rest, arguments: read };
  });
}

function readCommon(
  entry: Record<string, unknown>,
): { name: string; title?: string; description?: string; mimeType?: string } | string {
  if (typeof entry.name !== "string" || entry.name === "") return "name must be a non-empty string";
  for (const key of ["title", "description", "mimeType"]) {
    if (entry[key] !== undefined && typeof entry[key] !== "string") return `${key} must be a string`;
  }
  return {
    name: entry.name,
    ...(typeof entry.title === "string" ? { title: entry.title } : {}),
    ...(typeof entry.description === "string" ? { description: entry.description } : {}),
    ...(typeof entry.mimeType === "string" ? { mimeType: entry.mimeType } : {}),
  };
}

/** Why a value is not a usable resource URI, or undefined when it is one. */
export function uriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string") return `the uri is ${describeValue(uri)}, not a string`;
  if (uri.length > MAX_URI_LENGTH) return `the uri is over ${MAX_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return "the uri is not an absolute URI";
  return undefined;
}

// What each RFC 6570 operator expands to, as a linear-time (RE2) pattern; an expansion may be empty.
const OPERATOR_PATTERNS: Record<string, string> = Object.freeze({
  "": "[^/?#]*",
  "+": "[^#]*",
  "#": "(?:#.*)?",
  ".": "(?:\\.[^/?#]*)*",
  "/": "(?:/[^/?#]*)*",
  ";": "(?:;[^/?#]*)*",
  "?": "(?:\\?[^#]*)?",
  "&": "(?:&[^#]*)*",
});
const EXPRESSION =
  /^([+#./;?&]?)([A-Za-z0-9_%.]+(?::[1-9]\d{0,3}|\*)?(?:,[A-Za-z0-9_%.]+(?::[1-9]\d{0,3}|\*)?)*)$/;

/**
 * A matcher for the URIs a template can expand to, or undefined for a malformed template. It runs on
 * RE2 (linear time): the template comes from the server, and the URI from the model.
 */
export function templateMatcher(template: string): ((uri: string) => boolean) | undefined {
  let pattern = "";
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    const close = rest.indexOf("}");
    if (open === -1) {
      if (close !== -1) return undefined;
      pattern += RE2JS.quote(rest);
      break;
    }
    if (close !== -1 && close < open) return undefined;
    pattern += RE2JS.quote(rest.slice(0, open));
    const end = rest.indexOf("}", open);
    if (end === -1) return undefined;
    const match = EXPRESSION.exec(rest.slice(open + 1, end));
    if (!match) return undefined;
    pattern += OPERATOR_PATTERNS[match[1] ?? ""];
    rest = rest.slice(end + 1);
  }
  const compiled = RE2JS.compile(pattern);
  return (uri) => compiled.matches(uri);
}
