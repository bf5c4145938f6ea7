import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { definePolicy, type Policy, policySchema } from "@agent/policy";
import { DEFAULT_TOOL_OUTPUT_MAX_CHARS, DEFAULT_TOOL_TIMEOUT_MS } from "@agent/tools";
import { z } from "zod";
import { isRecord } from "../records.js";
import { CONFIG_ERROR_CODES, ConfigError, type ConfigErrorCode } from "./config-error.js";
import { type ConfigIssue, formatIssues, issuesFromZod } from "./config-issues.js";
import { collectConfigSecrets } from "./config-secrets.js";
import type { Environment } from "./expand-variables.js";
import { MODEL_CONFIG_SCHEMA, type ModelConfig, toModelConfig } from "./model-config.js";
import { parseJsonText } from "./parse-json-text.js";
import { readServerEntry, type ServerConfig, TIMEOUT_MS_SCHEMA } from "./server-config.js";
import { readStateEntry, STATE_CONFIG_SCHEMA, type StateConfig } from "./state-config.js";

/** The file looked for in the current directory when neither `--config` nor `AGENT_CONFIG` is given. */
export const DEFAULT_CONFIG_FILE = "agent.config.json";

/** Claude Code's project file, used when the current directory has no {@link DEFAULT_CONFIG_FILE}. */
export const PROJECT_MCP_FILE = ".mcp.json";

/** The environment variable naming the configuration file. */
export const CONFIG_ENV_VARIABLE = "AGENT_CONFIG";

/** `policy.sandbox` when the file does not set it: every stdio server and command isolated, or not started. */
export const DEFAULT_SANDBOX_REQUIREMENT = "required";

/**
 * `hostRunPaths` when the file does not set it: what the host runs later from a workspace (git's
 * config, including what redirects it: `commondir`, a worktree's config and the submodules' own
 * repositories; git's hooks; direnv's `.envrc`; editors' task and run settings; husky's hooks).
 */
export const DEFAULT_HOST_RUN_PATHS: readonly string[] = Object.freeze([
  ".git/config",
  ".git/config.worktree",
  ".git/commondir",
  ".git/modules",
  ".git/hooks",
  ".envrc",
  ".vscode",
  ".idea",
  ".husky",
]);

/** A loaded configuration: validated, variables expanded, paths absolute, defaults filled in. */
export interface AgentConfig {
  /** Absolute path of the file it was read from. */
  file: string;
  /** The file's directory, which relative paths in it are resolved against. */
  directory: string;
  /** Absolute root the local file tools are confined to. */
  workspaceRoot: string;
  /** Absolute paths no local tool or sandboxed process may read or write (`protectedPaths`), besides the config and state. */
  protectedPaths: string[];
  /**
   * Absolute paths (relative ones resolved against the workspace root) whose contents the host runs
   * later (`hostRunPaths`, default {@link DEFAULT_HOST_RUN_PATHS}): readable, never written or
   * created by a local tool or a sandboxed process.
   */
  hostRunPaths: string[];
  /** Timeout for each tool call, in milliseconds. */
  toolTimeoutMs: number;
  /** The most characters of a tool result a terminal or the run record gets (the rest is kept in a file). */
  toolOutputMaxChars: number;
  /** The policy, with `@agent/policy` defaults for what the file leaves out. */
  policy: Policy;
  /** `run_command`: whether shells may run a command line with `-c` (default false). */
  runCommand: { allowShell: boolean };
  /** The model `agent run` drives, if the file configures one. */
  model: ModelConfig | undefined;
  /** Where approvals, runs and the audit trail live (`state`): SQLite here, or a shared PostgreSQL. */
  state: StateConfig;
  /** Every `mcpServers` entry, in file order, disabled ones included. */
  servers: ServerConfig[];
  /** Settings that were accepted but have no effect (other clients' keys), one sentence each. */
  warnings: string[];
  /** Values `${VAR}` references took from the environment, in any server entry: secrets for redaction. */
  substitutedValues: string[];
}

/** Where {@link resolveConfigPath} found the path. */
export type ConfigPathSource = "flag" | "env" | "default" | "project-mcp";

const fileSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  policy: policySchema.optional(),
  workspaceRoot: z.string().min(1, { message: "may not be empty" }).optional(),
  toolTimeoutMs: TIMEOUT_MS_SCHEMA.optional(),
  toolOutputMaxChars: z
    .number()
    .int()
    .min(200, { message: "must be at least 200 characters" })
    .max(100_000_000, { message: "must be at most 100000000 characters" })
    .optional(),
  protectedPaths: z.array(z.string().min(1, { message: "may not be empty" })).optional(),
  hostRunPaths: z.array(z.string().min(1, { message: "may not be empty" })).optional(),
  runCommand: z.strictObject({ allowShell: z.boolean().optional() }).optional(),
  model: MODEL_CONFIG_SCHEMA,
  state: STATE_CONFIG_SCHEMA,
});

/**
 * The configuration file to use: `flag` (`--config FILE`), else `env.AGENT_CONFIG`, else
 * `agent.config.json` in `cwd`, else `.mcp.json` in `cwd` (Claude Code's project file) if it exists;
 * relative paths are resolved against `cwd`. Empty values count as unset.
 */
export function resolveConfigPath(options: { flag?: string | undefined; env?: Environment; cwd: string }): {
  path: string;
  source: ConfigPathSource;
} {
  const fromEnv = options.env?.[CONFIG_ENV_VARIABLE];
  if (options.flag !== undefined && options.flag !== "") {
    return { path: resolve(options.cwd, options.flag), source: "flag" };
  }
  if (fromEnv !== undefined && fromEnv !== "") return { path: resolve(options.cwd, fromEnv), source: "env" };
  const path = resolve(options.cwd, DEFAULT_CONFIG_FILE);
  const projectFile = resolve(options.cwd, PROJECT_MCP_FILE);
  const hasOwn = existsSync(path);
  if (hasOwn && existsSync(projectFile)) {
    // Refused rather than guessed: were .mcp.json the configuration, a tool or server that may write
    // the workspace could create agent.config.json beside it and take precedence the next time.
    throw new ConfigError(
      CONFIG_ERROR_CODES.ambiguous,
      `Both ${DEFAULT_CONFIG_FILE} and ${PROJECT_MCP_FILE} are in ${options.cwd}; pass --config FILE or set ${CONFIG_ENV_VARIABLE} to say which one to use.`,
      { file: path },
    );
  }
  if (!hasOwn && existsSync(projectFile)) return { path: projectFile, source: "project-mcp" };
  return { path, source: "default" };
}

/**
 * Reads and validates the configuration at `path`, expanding `${VAR}` references from `env`. Throws
 * `ConfigError` listing every problem with its field path; no message contains a configured value.
 */
export function loadConfig(path: string, env: Environment = process.env): AgentConfig {
  const file = resolve(path);
  const raw = parseJsonText(readConfigText(file), file);
  const parsed = fileSchema.safeParse(raw);
  const issues: ConfigIssue[] = parsed.success ? [] : issuesFromZod(parsed.error, fileSchema);
  const directory = dirname(file);
  const workspaceRoot = resolve(directory, parsed.success ? (parsed.data.workspaceRoot ?? ".") : ".");
  const warnings: string[] = [];
  const servers: ServerConfig[] = [];
  const substitutedValues: string[] = [];
  let missingVariables = 0;
  // Issues of servers that lack only variables: reported only if the file has other problems too.
  const deferred: ConfigIssue[] = [];
  // Server entries are checked even when the top level has problems, so one run reports everything.
  for (const [name, entry] of Object.entries(serverEntriesOf(raw))) {
    const result = readServerEntry(name, entry, { env, directory, workspaceRoot });
    (result.server?.missingVariables ? deferred : issues).push(...result.issues);
    warnings.push(...result.warnings);
    substitutedValues.push(...result.substitutedValues);
    missingVariables += result.missingVariables.length;
    if (result.server) servers.push(result.server);
  }
  // A credential too short to redact fails the file, like any other bad field.
  issues.push(...collectConfigSecrets({ servers, substitutedValues }).tooShort);
  const stateEntry = readStateEntry(isRecord(raw) ? raw.state : undefined, env);
  issues.push(...stateEntry.issues);
  substitutedValues.push(...stateEntry.substituted);
  if (!parsed.success || issues.length > 0) {
    issues.push(...deferred);
    // `config_missing_variable` promises that setting variables is all it takes.
    const onlyVariables = missingVariables > 0 && missingVariables === issues.length;
    throw invalidConfig(file, onlyVariables ? "config_missing_variable" : "config_invalid", issues);
  }

  return {
    file,
    directory,
    workspaceRoot,
    protectedPaths: (parsed.data.protectedPaths ?? []).map((path) => resolve(directory, path)),
    hostRunPaths: (parsed.data.hostRunPaths ?? DEFAULT_HOST_RUN_PATHS).map((path) =>
      resolve(workspaceRoot, path),
    ),
    toolTimeoutMs: parsed.data.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    toolOutputMaxChars: parsed.data.toolOutputMaxChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS,
    // Unlike the library, the CLI isolates by default: a server that cannot be isolated does not start.
    policy: definePolicy({ sandbox: DEFAULT_SANDBOX_REQUIREMENT, ...parsed.data.policy }),
    runCommand: { allowShell: parsed.data.runCommand?.allowShell ?? false },
    model: parsed.data.model && toModelConfig(parsed.data.model),
    state: stateEntry.state,
    servers,
    warnings,
    substitutedValues,
  };
}

function serverEntriesOf(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw) || !isRecord(raw.mcpServers)) return {};
  return raw.mcpServers;
}

/** The configuration file's text; throws `config_not_found` / `config_unreadable` naming the file. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ConfigError(
        CONFIG_ERROR_CODES.notFound,
        `No configuration file at ${file}. Create it, pass --config FILE, or set ${CONFIG_ENV_VARIABLE}.`,
        { file, cause },
      );
    }
    throw new ConfigError(
      CONFIG_ERROR_CODES.unreadable,
      `Cannot read the configuration file ${file} (${code ?? "unknown error"}); check that it is a readable file.`,
      { file, cause },
    );
  }
}

/** The error listing every problem of a configuration file, each with its field path. */
export function invalidConfig(file: string, code: ConfigErrorCode, issues: ConfigIssue[]): ConfigError {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  return new ConfigError(code, `${file}: ${count} to fix:\n${formatIssues(issues)}`, { file });
}
