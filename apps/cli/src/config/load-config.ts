import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isRecord } from "@agent/base";
import { definePolicy, type Policy } from "@agent/policy";
import { DEFAULT_TOOL_OUTPUT_MAX_CHARS, DEFAULT_TOOL_TIMEOUT_MS } from "@agent/tools";
import { CONFIG_ENV_VARIABLE } from "./config-discovery.js";
import { CONFIG_ERROR_CODES, ConfigError, type ConfigErrorCode } from "./config-error.js";
import { CONFIG_FILE_SCHEMA } from "./config-file-schema.js";
import { type ConfigIssue, formatIssues, issuesFromZod } from "./config-issues.js";
import { collectConfigSecrets } from "./config-secrets.js";
import type { Environment } from "./expand-variables.js";
import { type ModelConfig, toModelConfig } from "./model-config.js";
import { parseJsonText } from "./parse-json-text.js";
import { readServerEntry, type ServerConfig } from "./server-config.js";
import { readStateEntry, type StateConfig } from "./state-config.js";
import { type ConfigOrigins, mergeUserDocument, readUserDocument, userServerEntries } from "./user-config.js";

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
  /** Absolute path of the project file it was read from. */
  file: string;
  /** The user-level file merged under it (see {@link mergeUserDocument}), when there is one. */
  userFile: string | undefined;
  /** Which file each merged setting came from (`agent config show`). */
  origins: ConfigOrigins;
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

/**
 * Reads and validates the configuration at `path`, expanding `${VAR}` references from `env`. Throws
 * `ConfigError` listing every problem with its field path; no message contains a configured value.
 */
export function loadConfig(
  path: string,
  env: Environment = process.env,
  options: LoadConfigOptions = {},
): AgentConfig {
  const file = resolve(path);
  const own = parseJsonText(readConfigText(file), file);
  const user = readUserDocument(options.userFile);
  const { document: raw, origins } = mergeUserDocument({ file, document: own }, user);
  const parsed = CONFIG_FILE_SCHEMA.safeParse(raw);
  const issues: ConfigIssue[] = parsed.success ? [] : issuesFromZod(parsed.error, CONFIG_FILE_SCHEMA);
  const directory = dirname(file);
  const workspaceRoot = resolve(directory, parsed.success ? (parsed.data.workspaceRoot ?? ".") : ".");
  const warnings: string[] = [];
  const servers: ServerConfig[] = [];
  const substitutedValues: string[] = [];
  let missingVariables = 0;
  // Issues of servers that lack only variables: reported only if the file has other problems too.
  const deferred: ConfigIssue[] = [];
  // Server entries are checked even when the top level has problems, so one run reports everything.
  // The user's entries resolve relative paths against their own file's directory; their problems name that file.
  const userIssues: ConfigIssue[] = [];
  const entries = [
    ...Object.entries(serverEntriesOf(raw)).map(([name, entry]) => ({ name, entry, directory, issues })),
    ...userServerEntries(own, user).map(([name, entry]) => ({
      name,
      entry,
      directory: dirname(user?.file ?? file),
      issues: userIssues,
    })),
  ];
  for (const { name, entry, directory, issues } of entries) {
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
  if (user && userIssues.length > 0) throw invalidConfig(user.file, "config_invalid", userIssues);
  if (!parsed.success || issues.length > 0) {
    issues.push(...deferred);
    // `config_missing_variable` promises that setting variables is all it takes.
    const onlyVariables = missingVariables > 0 && missingVariables === issues.length;
    throw invalidConfig(file, onlyVariables ? "config_missing_variable" : "config_invalid", issues);
  }

  return {
    file,
    userFile: user?.file,
    origins,
    directory,
    workspaceRoot,
    // The user-level file is policy too: no local tool or sandboxed process may rewrite it, nor
    // create it where there is none yet (it would then steer every project).
    protectedPaths: [
      ...(parsed.data.protectedPaths ?? []).map((path) => resolve(directory, path)),
      ...(options.userFile === undefined ? [] : [resolve(options.userFile)]),
    ],
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

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The user-level configuration to merge under the project's (see {@link userConfigPath}); absent or missing: none. */
  userFile?: string | undefined;
}

/** The error listing every problem of a configuration file, each with its field path. */
export function invalidConfig(file: string, code: ConfigErrorCode, issues: ConfigIssue[]): ConfigError {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  return new ConfigError(code, `${file}: ${count} to fix:\n${formatIssues(issues)}`, { file });
}
