import { isAbsolute, resolve } from "node:path";
import { isRecord } from "@agent/base";
import { serverNameProblem } from "@agent/mcp-client";
import type { TrustLabel } from "@agent/tools";
import { z } from "zod";
import { type ConfigIssue, type FieldPath, formatFieldPath, issuesFromZod } from "./config-issues.js";
import { type Environment, expandVariables } from "./expand-variables.js";
import { OAUTH_ENTRY_SCHEMA, type OAuthServerConfig, readOAuthConfig } from "./oauth-config.js";
import { resolveServerSandbox, SERVER_SANDBOX_SCHEMA, type ServerSandboxConfig } from "./sandbox-config.js";

/** What every server entry may carry besides how to reach the server. */
interface ServerOptions {
  name: string;
  /** Per-request timeout for this server (initialize, listing, calls); unset leaves it to the caller. */
  timeoutMs?: number;
  /** Close the connection after this long unused; the next call reopens it (handshake, discovery). Unset: never. */
  idleTimeoutMs?: number;
  /** Offer the server sampling on the configured model, each request capped at `maxTokens`. Unset: not offered. */
  sampling?: { maxTokens: number };
  /** Remote tool names or `*` patterns to expose; unset exposes all (minus {@link excludeTools}). */
  includeTools?: string[];
  /** Remote tool names or `*` patterns never to expose; exclusion wins over inclusion. */
  excludeTools?: string[];
  /** A disabled server stays in the configuration but is never started (nor its `${VAR}`s expanded). */
  disabled: boolean;
  /**
   * Whether what the server returns (results, resources, prompts, its requests) may steer a run:
   * `untrusted` (the default) taints a run that takes it in, and the flow guard then holds its sinks.
   */
  trust: TrustLabel;
  /**
   * Variables the entry references that are not set: the server is kept so it can be shown, but it
   * fails to start, naming them, while the rest of the configuration works. Unset when all are set.
   */
  missingVariables?: string[];
}

/** A local server started as a child process and spoken to over stdio. */
export interface StdioServerConfig extends ServerOptions {
  type: "stdio";
  /** A bare name looked up on PATH, or an absolute path. */
  command: string;
  args: string[];
  /** Variables given to the server, after expansion; empty when the entry sets none. */
  env: Record<string, string>;
  /** Absolute working directory of the server. */
  cwd: string;
  /** What the server's bubblewrap sandbox grants: network, writable and extra readable paths. */
  sandbox: ServerSandboxConfig;
  /**
   * The files the server runs from (absolute), as the entry lists them: kept read-only for every
   * local tool and sandbox. Unset: inferred from `command` and `args` (see `launchFilesOf`).
   */
  launchFiles?: string[];
  /**
   * For a server started through a package runner: run the packages' lifecycle scripts (`npx`,
   * `npm exec`), or build source distributions (`uvx`, `uv tool run`), when the package cache
   * installs them. Unset: neither (`--ignore-scripts`, `--no-build`: wheels only).
   */
  installScripts?: boolean;
}

/** A remote server spoken to over Streamable HTTP, or the legacy HTTP+SSE transport (`sse`, protocol 2024-11-05). */
export interface HttpServerConfig extends ServerOptions {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** OAuth settings; `false` turns OAuth off. Unset: OAuth with defaults unless `headers` carry an Authorization. */
  oauth?: OAuthServerConfig | false;
}

/** One entry of `mcpServers`, validated, expanded and with paths made absolute. */
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * Keys other MCP clients write into server entries that we accept and ignore, with a warning: each
 * only asks for less governance than ours (their approval lists, their timeout in seconds), so
 * ignoring them never exposes more. Any other unknown key is an error.
 */
export const IGNORED_SERVER_KEYS: readonly string[] = [
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "description",
];

const timeoutSchema = z
  .number()
  .int()
  .min(1)
  .max(3_600_000, { message: "must be at most 3600000 (one hour)" });

/** Milliseconds for a timeout: a whole number from 1 to 3600000. */
export const TIMEOUT_MS_SCHEMA: z.ZodNumber = timeoutSchema;

const toolListSchema = z.array(z.string().min(1, { message: "a tool name or pattern may not be empty" }));

const optionShape = Object.freeze({
  timeoutMs: timeoutSchema.optional(),
  idleTimeoutMs: timeoutSchema.optional(),
  sampling: z
    .strictObject({
      maxTokens: z.number().int().min(1).max(1_000_000, { message: "must be at most 1000000" }),
    })
    .optional(),
  includeTools: toolListSchema.optional(),
  excludeTools: toolListSchema.optional(),
  disabled: z.boolean().optional(),
  trust: z
    .enum(["trusted", "untrusted"], {
      error: (issue) =>
        typeof issue.input === "boolean"
          ? 'must be "trusted" or "untrusted" (Gemini CLI\'s trust: true skips confirmations; here that is an "allow" rule, and "trust" says whether the server\'s content may steer a run)'
          : 'must be "trusted" or "untrusted"',
    })
    .optional(),
});

const stdioEntrySchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, { message: "may not be empty" }),
  args: z.array(z.string()).optional(),
  env: z
    .record(
      z.string().regex(/^[^=\0]+$/, { message: "an environment variable name may not contain '='" }),
      z.string(),
    )
    .optional(),
  cwd: z.string().min(1, { message: "may not be empty" }).optional(),
  sandbox: SERVER_SANDBOX_SCHEMA.optional(),
  launchFiles: z.array(z.string().min(1, { message: "a path may not be empty" })).optional(),
  installScripts: z.boolean().optional(),
  ...optionShape,
});

const httpEntrySchema = z.strictObject({
  type: z.enum(["http", "streamable-http", "sse"]).optional(),
  url: z.string().min(1, { message: "may not be empty" }),
  headers: z
    .record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: "is not a valid HTTP header name" }),
      z.string(),
    )
    .optional(),
  oauth: OAUTH_ENTRY_SCHEMA.optional(),
  ...optionShape,
});

/** The result of reading one server entry: the server, or the issues that stop it. */
export interface ServerEntryResult {
  server: ServerConfig | undefined;
  issues: ConfigIssue[];
  /** Each failed `${VAR}` reference, by variable name, for the error code. */
  missingVariables: string[];
  /** Every value a `${VAR}` reference in the entry took from the environment: secrets for redaction. */
  substitutedValues: string[];
  warnings: string[];
}

/** Where a server entry is read: the environment for `${VAR}` and the directory paths are relative to. */
export interface ServerEntryContext {
  env: Environment;
  /** The configuration file's directory. */
  directory: string;
  /** The absolute workspace root, which relative sandbox paths resolve against. */
  workspaceRoot: string;
}

/**
 * Validates one `mcpServers` entry, expands `${VAR}` in its command, args, env values, cwd, url and
 * header values, and resolves `cwd` against the configuration's directory and a relative `command`
 * containing a slash against that `cwd`. Issues name field paths, never values.
 */
export function readServerEntry(name: string, raw: unknown, context: ServerEntryContext): ServerEntryResult {
  const base: FieldPath = ["mcpServers", name];
  const result: ServerEntryResult = {
    server: undefined,
    issues: [],
    missingVariables: [],
    substitutedValues: [],
    warnings: [],
  };
  const nameProblem = serverNameProblem(name);
  if (nameProblem) result.issues.push({ path: formatFieldPath(base), message: nameProblem });
  if (!isRecord(raw)) {
    result.issues.push({ path: formatFieldPath(base), message: "expected an object describing the server" });
    return result;
  }
  const entry = { ...raw };
  for (const key of IGNORED_SERVER_KEYS) {
    if (key in entry) {
      delete entry[key];
      result.warnings.push(
        `${formatFieldPath([...base, key])} is another client's setting and is ignored here.`,
      );
    }
  }
  const kind = transportOf(entry);
  if (typeof kind !== "string") {
    result.issues.push({ path: formatFieldPath([...base, ...kind.path]), message: kind.message });
    return result;
  }
  if (kind === "http" && "sandbox" in entry) {
    result.issues.push({
      path: formatFieldPath([...base, "sandbox"]),
      message:
        "an HTTP server is remote: no local sandbox applies to it (sandbox is for stdio servers, which run on this machine)",
    });
    return result;
  }
  const schema = kind === "stdio" ? stdioEntrySchema : httpEntrySchema;
  const parsed = schema.safeParse(entry);
  if (!parsed.success) {
    result.issues.push(...issuesFromZod(parsed.error, schema, base));
    return result;
  }
  const options = pickOptions(name, parsed.data);
  // A disabled server is never started: its references stay as written, so an unset one is no problem.
  const expander = new FieldExpander(name, context.env, result, !options.disabled);
  result.server =
    kind === "stdio"
      ? readStdio(parsed.data as StdioEntry, options, expander, context)
      : readHttp(parsed.data as HttpEntry, options, expander, kind);
  // A server with any problem is not returned: half a server must not start. Unset variables only
  // are the exception: the server is returned marked, so it is shown as failed and never started.
  if (result.issues.length > 0 && result.issues.length === result.missingVariables.length && result.server) {
    result.server.missingVariables = [...new Set(result.missingVariables)];
  } else if (result.issues.length > 0) {
    result.server = undefined;
  }
  return result;
}

type StdioEntry = z.infer<typeof stdioEntrySchema>;
type HttpEntry = z.infer<typeof httpEntrySchema>;

function readStdio(
  data: StdioEntry,
  options: ServerOptions,
  expander: FieldExpander,
  { directory, workspaceRoot }: ServerEntryContext,
): StdioServerConfig {
  const base: FieldPath = ["mcpServers", options.name];
  const command = expander.expand(data.command, [...base, "command"], { nonEmpty: true }) ?? "";
  const args = (data.args ?? []).map((arg, index) => expander.expand(arg, [...base, "args", index]) ?? "");
  const env = expander.expandRecord(data.env, [...base, "env"]);
  const cwd = resolve(
    directory,
    expander.expand(data.cwd ?? ".", [...base, "cwd"], { nonEmpty: true }) ?? ".",
  );
  // A bare name is looked up on PATH; a relative path is taken from where the server will run.
  const resolvedCommand = /[/\\]/.test(command) && !isAbsolute(command) ? resolve(cwd, command) : command;
  const sandbox = resolveServerSandbox(data.sandbox, workspaceRoot, (path, field, index) =>
    expander.expand(path, [...base, "sandbox", field, index], { nonEmpty: true }),
  );
  const server: StdioServerConfig = {
    ...options,
    type: "stdio",
    command: resolvedCommand,
    args,
    env,
    cwd,
    sandbox,
  };
  if (data.installScripts !== undefined) server.installScripts = data.installScripts;
  if (data.launchFiles) {
    server.launchFiles = data.launchFiles.map((path, index) =>
      resolve(cwd, expander.expand(path, [...base, "launchFiles", index], { nonEmpty: true }) ?? "."),
    );
  }
  return server;
}

function readHttp(
  data: HttpEntry,
  options: ServerOptions,
  expander: FieldExpander,
  kind: HttpServerConfig["type"],
): HttpServerConfig {
  const base: FieldPath = ["mcpServers", options.name];
  const url = expander.expand(data.url, [...base, "url"], { nonEmpty: true });
  if (url && !isHttpUrl(url)) expander.reject([...base, "url"], "must be an absolute http: or https: URL");
  const headers = expander.expandRecord(data.headers, [...base, "headers"]);
  for (const [key, value] of Object.entries(headers)) {
    // A line break in a header value would let a variable smuggle in another header.
    if (/[\r\n\0]/.test(value)) expander.reject([...base, "headers", key], "may not contain line breaks");
  }
  const server: HttpServerConfig = { ...options, type: kind, url: url ?? "", headers };
  if (data.oauth === false) server.oauth = false;
  else if (data.oauth) {
    if (Object.keys(headers).some((key) => key.toLowerCase() === "authorization")) {
      expander.reject([...base, "oauth"], "cannot be used with an Authorization header; keep one of them");
    }
    server.oauth = readOAuthConfig(data.oauth, base, expander);
  }
  return server;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** Which transport an entry describes, or where and why that is unclear. */
function transportOf(
  entry: Record<string, unknown>,
): "stdio" | "http" | "sse" | { path: FieldPath; message: string } {
  const { type } = entry;
  if (type === "stdio") return "stdio";
  if (type === "http" || type === "streamable-http") return "http";
  if (type === "sse") return "sse";
  if (type !== undefined) {
    return { path: ["type"], message: 'expected "stdio", "http", "streamable-http" or "sse"' };
  }
  const hasCommand = "command" in entry;
  const hasUrl = "url" in entry;
  if (hasCommand && hasUrl) {
    return {
      path: [],
      message: 'has both "command" and "url"; set "type" to "stdio" or "http" to say which',
    };
  }
  if (hasCommand) return "stdio";
  if (hasUrl) return "http";
  return {
    path: [],
    message: 'needs "command" (a local server over stdio) or "url" (a remote server over Streamable HTTP)',
  };
}

function pickOptions(name: string, data: StdioEntry | HttpEntry): ServerOptions {
  const options: ServerOptions = { name, disabled: data.disabled ?? false, trust: data.trust ?? "untrusted" };
  if (data.timeoutMs !== undefined) options.timeoutMs = data.timeoutMs;
  if (data.idleTimeoutMs !== undefined) options.idleTimeoutMs = data.idleTimeoutMs;
  if (data.sampling !== undefined) options.sampling = { maxTokens: data.sampling.maxTokens };
  if (data.includeTools !== undefined) options.includeTools = data.includeTools;
  if (data.excludeTools !== undefined) options.excludeTools = data.excludeTools;
  return options;
}

/** Expands fields of one server entry, recording every failure instead of stopping at the first. */
class FieldExpander {
  constructor(
    readonly server: string,
    readonly env: Environment,
    readonly result: ServerEntryResult,
    readonly expanding = true,
  ) {}

  /**
   * The expanded text, or `undefined` after recording why it could not be expanded (the entry is then
   * dropped, so callers may substitute anything). With `nonEmpty`, an empty result is a problem too.
   */
  expand(text: string, path: FieldPath, options: { nonEmpty?: boolean } = {}): string | undefined {
    if (!this.expanding) return text;
    const expanded = expandVariables(text, this.env);
    if (expanded.ok) {
      this.result.substitutedValues.push(...expanded.substituted);
      if (options.nonEmpty === true && expanded.value === "") this.reject(path, "is empty after expansion");
      return expanded.value;
    }
    if (expanded.problem === "missing_variable") {
      this.result.missingVariables.push(expanded.variable);
      this.reject(
        path,
        `environment variable ${expanded.variable} is not set (needed by server "${this.server}"); set it, or give a default with \${${expanded.variable}:-default}`,
      );
    } else {
      this.reject(
        path,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the reference syntax itself.
        "has a malformed variable reference; write ${NAME} or ${NAME:-default}, and $${ for a literal ${",
      );
    }
    return undefined;
  }

  /** Records a problem with an expanded field (its value is never shown). */
  reject(path: FieldPath, message: string): void {
    this.result.issues.push({ path: formatFieldPath(path), message });
  }

  expandRecord(record: Record<string, string> | undefined, path: FieldPath): Record<string, string> {
    const expanded: Record<string, string> = {};
    for (const [key, value] of Object.entries(record ?? {})) {
      expanded[key] = this.expand(value, [...path, key]) ?? "";
    }
    return expanded;
  }
}
