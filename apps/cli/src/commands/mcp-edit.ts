import { existsSync } from "node:fs";
import { isRecord } from "@agent/base";
import { serverNameProblem } from "@agent/mcp-client";
import {
  type ConfigDocument,
  memberSpan,
  readConfigDocument,
  writeEditedDocument,
} from "../config/config-document.js";
import { replaceConfigFile } from "../config/config-file-write.js";
import { appendObjectMember, removeObjectMember } from "../config/json-text-edit.js";
import type { JsonSpan } from "../config/parse-json-text.js";
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
 * `agent mcp add`: writes one `mcpServers` entry into the configuration file (created if absent)
 * as a text edit in place: every other byte of the file stays as written, the new entry indented
 * like the file. Values are written as given, so a `${VAR}` stays a reference. An existing name is
 * refused: remove it first.
 */
export function mcpAddCommand(file: string, io: CliIo, options: McpAddOptions): ExitCode {
  const problem = serverNameProblem(options.name);
  if (problem) throw usageError(`Server name ${JSON.stringify(options.name)}: ${problem}.`);
  const entry = entryOf(options);
  if (!existsSync(file)) {
    replaceConfigFile(file, `${JSON.stringify({ mcpServers: { [options.name]: entry } }, null, 2)}\n`);
  } else {
    const document = readConfigDocument(file);
    const { servers, span } = serversOf(document, true);
    if (Object.hasOwn(servers, options.name)) {
      throw usageError(
        `${file} already has a server named "${options.name}"; remove it first (agent mcp remove).`,
      );
    }
    const after =
      span?.kind === "object"
        ? appendObjectMember(document.text, span, options.name, entry)
        : appendObjectMember(document.text, document.root, "mcpServers", { [options.name]: entry });
    const expected = { ...document.value, mcpServers: { ...servers, [options.name]: entry } };
    writeEditedDocument(document, after, expected);
  }
  writeLine(io.stdout, `Added ${options.transport} server "${safeLine(options.name)}" to ${safeLine(file)}.`);
  return EXIT_CODES.ok;
}

/** `agent mcp remove <name>`: deletes one entry from the configuration file, every other byte kept. */
export function mcpRemoveCommand(file: string, io: CliIo, name: string): ExitCode {
  const document = readConfigDocument(file);
  const { servers, span } = serversOf(document, false);
  if (!Object.hasOwn(servers, name) || span?.kind !== "object") {
    throw usageError(`${file} has no server named ${JSON.stringify(name)}.`);
  }
  const { [name]: _removed, ...rest } = servers;
  writeEditedDocument(document, removeObjectMember(document.text, span, name), {
    ...document.value,
    mcpServers: rest,
  });
  writeLine(io.stdout, `Removed server "${safeLine(name)}" from ${safeLine(file)}.`);
  return EXIT_CODES.ok;
}

/** `agent mcp get <name>`: the entry as written (references unexpanded), one JSON document on stdout. */
export function mcpGetCommand(file: string, io: CliIo, name: string): ExitCode {
  const { servers } = serversOf(readConfigDocument(file), false);
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

/** The `mcpServers` object of a document, and where it sits (none yet: empty, if `create`). */
function serversOf(
  document: ConfigDocument,
  create: boolean,
): { servers: Record<string, unknown>; span: JsonSpan | undefined } {
  const servers = document.value.mcpServers;
  const span = memberSpan(document.root, "mcpServers");
  if (servers === undefined && create) return { servers: {}, span };
  if (!isRecord(servers)) {
    throw usageError(`${document.file} has no "mcpServers" object.`);
  }
  return { servers, span };
}
