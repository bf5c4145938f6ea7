import { existsSync, readFileSync } from "node:fs";
import { serverNameProblem } from "@agent/mcp-client";
import { replaceConfigFile } from "../config/config-file-write.js";
import { parseJsonText } from "../config/parse-json-text.js";
import { EXIT_CODES, type ExitCode, usageError } from "../exit-codes.js";
import { type CliIo, safeLine, writeLine } from "../terminal/io.js";

/** What `agent mcp add` was given, in `claude mcp add` shapes. */
export interface McpAddOptions {
  name: string;
  transport: "stdio" | "http" | "sse";
  /** stdio: the command and its arguments; http/sse: the URL alone. */
  target: string[];
  /** `--env K=V`, repeatable (stdio). */
  env: string[];
  /** `--header 'K: V'`, repeatable (http/sse). */
  headers: string[];
}

/**
 * `agent mcp add`: writes one `mcpServers` entry into the configuration file (created if absent),
 * keeping the file's indentation, key order and final newline. Values are written as given, so a
 * `${VAR}` stays a reference. An existing name is refused: remove it first.
 */
export function mcpAddCommand(file: string, io: CliIo, options: McpAddOptions): ExitCode {
  const problem = serverNameProblem(options.name);
  if (problem) throw usageError(`Server name ${JSON.stringify(options.name)}: ${problem}.`);
  const document = readDocument(file);
  const servers = serversOf(document, file, true);
  if (Object.hasOwn(servers, options.name)) {
    throw usageError(
      `${file} already has a server named "${options.name}"; remove it first (agent mcp remove).`,
    );
  }
  servers[options.name] = entryOf(options);
  writeDocument(file, document);
  writeLine(io.stdout, `Added ${options.transport} server "${safeLine(options.name)}" to ${safeLine(file)}.`);
  return EXIT_CODES.ok;
}

/** `agent mcp remove <name>`: deletes one entry from the configuration file, keeping its formatting. */
export function mcpRemoveCommand(file: string, io: CliIo, name: string): ExitCode {
  const document = readDocument(file);
  const servers = serversOf(document, file, false);
  if (!Object.hasOwn(servers, name)) throw usageError(`${file} has no server named ${JSON.stringify(name)}.`);
  delete servers[name];
  writeDocument(file, document);
  writeLine(io.stdout, `Removed server "${safeLine(name)}" from ${safeLine(file)}.`);
  return EXIT_CODES.ok;
}

/** `agent mcp get <name>`: the entry as written (references unexpanded), one JSON document on stdout. */
export function mcpGetCommand(file: string, io: CliIo, name: string): ExitCode {
  const servers = serversOf(readDocument(file), file, false);
  if (!Object.hasOwn(servers, name)) throw usageError(`${file} has no server named ${JSON.stringify(name)}.`);
  // Through the output guard like everything else: a literal secret in the entry is redacted.
  writeLine(io.stdout, JSON.stringify({ name, file, entry: servers[name] }, null, 2));
  return EXIT_CODES.ok;
}

function entryOf(options: McpAddOptions): Record<string, unknown> {
  if (options.transport === "stdio") {
    if (options.headers.length > 0) throw usageError("--header is for http and sse servers.");
    const [command, ...args] = options.target;
    if (!command)
      throw usageError('agent mcp add <name> needs "-- <command> [args...]" (or --transport http <url>).');
    const env = pairs(options.env, "=", "--env takes KEY=VALUE");
    return { command, ...(args.length ? { args } : {}), ...(Object.keys(env).length ? { env } : {}) };
  }
  if (options.env.length > 0) throw usageError("--env is for stdio servers; an HTTP server takes --header.");
  if (options.target.length !== 1)
    throw usageError(`agent mcp add --transport ${options.transport} <name> <url>`);
  const headers = pairs(options.headers, ":", "--header takes 'Name: value'");
  return {
    type: options.transport,
    url: options.target[0],
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}

function pairs(values: string[], separator: string, usage: string): Record<string, string> {
  const record: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const key = at > 0 ? value.slice(0, at).trim() : "";
    // The value is never quoted back: it may be a secret.
    if (key === "") throw usageError(`${usage}.`);
    record[key] = value.slice(at + 1).trim();
  }
  return record;
}

function readDocument(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const value = parseJsonText(readFileSync(file, "utf8"), file);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw usageError(`${file} is not a JSON object; fix it before editing it with agent mcp.`);
  }
  return value as Record<string, unknown>;
}

function serversOf(
  document: Record<string, unknown>,
  file: string,
  create: boolean,
): Record<string, unknown> {
  const servers = document.mcpServers;
  if (servers === undefined && create) {
    const fresh: Record<string, unknown> = {};
    document.mcpServers = fresh;
    return fresh;
  }
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw usageError(`${file} has no "mcpServers" object.`);
  }
  return servers as Record<string, unknown>;
}

/** Rewrites the file in one rename, with the indentation and final newline it had (two spaces if new). */
function writeDocument(file: string, document: Record<string, unknown>): void {
  const previous = existsSync(file) ? readFileSync(file, "utf8") : "";
  const indent = /^\{\s*?\n([ \t]+)"/.exec(previous)?.[1] ?? "  ";
  const newline = previous === "" || previous.endsWith("\n") ? "\n" : "";
  replaceConfigFile(file, `${JSON.stringify(document, null, indent)}${newline}`);
}
