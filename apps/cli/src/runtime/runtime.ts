import { realpathSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { pathToFileURL } from "node:url";
import type { McpClientFeatures, McpServerConnection } from "@agent/mcp-client";
import { createRedactor, type Redactor, redactJson } from "@agent/mcp-transport";
import type { OAuthCredentialStore, OAuthProvider } from "@agent/mcp-transport/oauth";
import { createPolicyGate } from "@agent/policy";
import { type EventSink, fanOutEvents, type ToolGate, ToolRegistry, ToolsError } from "@agent/tools";
import { createJsonlEventSink, type JsonlEventSink } from "@agent/tools/node";
import type { Pool } from "pg";
import {
  type AgentConfig,
  collectConfigSecrets,
  loadConfig,
  readStateConfigOf,
  resolveConfigPath,
  type ServerConfig,
  type StateConfig,
} from "../config/index.js";
import {
  createLocalTools,
  createRunCommandTool,
  listProtectedPaths,
  PathGuard,
  type ProtectedPaths,
} from "../local-tools/index.js";
import {
  auditLogPath,
  createFileCredentialStore,
  currentRunOwner,
  ensureStateDirectory,
  notRegular,
  openPostgresStateBackend,
  resolveStateDir,
  SqliteStateStore,
  type StateStore,
  sqliteStateStore,
} from "../state/index.js";
import { createElicitationHandler } from "../terminal/elicitation-prompt.js";
import { type CliIo, safeText, writeLine } from "../terminal/io.js";
import { voidStaleApprovals } from "./approval-sweep.js";
import { connectServers } from "./connect-servers.js";
import { createConfiguredSampling } from "./sampling-handler.js";
import { createSandboxes, type Sandboxes } from "./sandboxes.js";
import { createServerAuthProvider } from "./server-auth.js";
import { createServerConnection, type ServerReach } from "./server-connections.js";
import { loadIdentityKey } from "./server-identity.js";

/** Where `agent audit` reads the trail: the JSONL file of this machine, or the shared table. */
export type AuditSource = { kind: "file"; path: string } | { kind: "postgres"; pool: Pool };

/** The durable part: state database and audit trail, all the approval commands need. */
export interface StateRuntime {
  /** The state directory (absolute): the local audit file, tokens, and the SQLite database when used. */
  stateDir: string;
  /** The configuration file in use (absolute; it may not exist for state-only commands). */
  configFile: string;
  /** Approvals and runs: SQLite here, or the PostgreSQL database of `state.url`. */
  state: StateStore;
  /** OAuth tokens and client registrations of HTTP servers (a 0600 file in the state directory). */
  credentials: OAuthCredentialStore;
  events: EventSink;
  /** The local JSONL audit file (always written, also when the trail goes to PostgreSQL too). */
  auditPath: string;
  /** What `agent audit` reads. */
  auditSource: AuditSource;
  /** The key of server identities: in the state directory, or shared through PostgreSQL. */
  identityKey(): Buffer;
  /** Flushes the audit trail and closes the database. */
  close(): Promise<void>;
}

/** Everything a command works with: configuration, durable state, audit trail, tools and the gate. */
export interface Runtime extends StateRuntime {
  config: AgentConfig;
  /**
   * What no local tool and no sandboxed process may read or write: the config file, the state
   * directory, and the config's `protectedPaths`. The one place this set is computed.
   */
  protectedPaths: ProtectedPaths;
  /**
   * The workspace root's real path when this runtime opened (symbolic links resolved): the local
   * tools are pinned to it, and it is the cwd every call's approval digest binds.
   */
  workspaceRealPath: string;
  /** Built from every secret of the configuration; every output of the command passes through it. */
  redactor: Redactor;
  registry: ToolRegistry;
  gate: ToolGate;
  connections: McpServerConnection[];
  /** The OAuth provider of each HTTP server that uses OAuth, by server name. */
  authProviders: ReadonlyMap<string, OAuthProvider>;
  /** The bubblewrap sandboxes of the stdio servers and of `run_command`. */
  sandboxes: Sandboxes;
  /**
   * Connects the named servers (all enabled ones by default) concurrently, showing progress, then
   * voids the approvals of tools whose definition changed ({@link Runtime.voidStaleApprovals}).
   */
  connect(names?: readonly string[], signal?: AbortSignal): Promise<void>;
  /** Voids pending and granted approvals of tools that changed or were removed since they were asked. */
  voidStaleApprovals(): Promise<void>;
  /** Closes every server (bounded in time) and the state; never throws. */
  close(): Promise<void>;
}

/** Global options that locate the configuration and the state. */
export interface RuntimeLocation {
  config: string | undefined;
  stateDir: string | undefined;
  /** `--json`: no prompt may wait for a person (a server's form is declined). */
  json?: boolean;
}

/**
 * Opens the state (the SQLite database in the state directory, or the PostgreSQL database the
 * configuration's `state.url` names) and the audit trail. The state directory is the flag, then env,
 * then `.agent` beside the configuration file. `stateConfig` is the loaded configuration's, when the
 * caller has it; otherwise only the file's `state` key is read (a missing file means SQLite).
 */
export async function openStateRuntime(
  location: RuntimeLocation,
  io: CliIo,
  stateConfig?: StateConfig,
): Promise<StateRuntime> {
  const configFile = resolveConfigPath({ flag: location.config, env: io.env, cwd: io.cwd }).path;
  const stateDir = resolveStateDir({ flag: location.stateDir, env: io.env, cwd: io.cwd, configFile });
  const { url, audit: auditTo } = stateConfig ?? readStateConfigOf(configFile, io.env).state;
  // The directory is created private before the audit file lands in it.
  ensureStateDirectory(stateDir);
  const auditPath = auditLogPath(stateDir);
  const warn = (what: string) => (error: unknown) =>
    writeLine(io.stderr, `warning: ${what} could not be written: ${safeText(String(error))}`);
  // The state first: when it cannot be opened (a FIFO in place of the database, the team's server
  // down), nothing is created beside it, not even the audit file.
  if (url === undefined) {
    const sqlite = SqliteStateStore.open(stateDir);
    const jsonl = openAuditFileOr(auditPath, warn("the audit trail"), () => sqlite.close());
    return {
      stateDir,
      configFile,
      state: sqliteStateStore(sqlite),
      credentials: createFileCredentialStore(stateDir),
      events: jsonl,
      auditPath,
      auditSource: { kind: "file", path: auditPath },
      identityKey: () => loadIdentityKey(stateDir),
      async close() {
        jsonl.close();
        sqlite.close();
      },
    };
  }
  const shared = await openPostgresStateBackend({
    url,
    owner: currentRunOwner(),
    decidedBy: currentUserName(),
    onAuditError: warn("the PostgreSQL audit trail"),
  });
  const jsonl = openAuditFileOr(auditPath, warn("the audit trail"), () => void shared.store.close());
  return {
    stateDir,
    configFile,
    state: shared.store,
    credentials: createFileCredentialStore(stateDir),
    // Both trails: the file is written before each call it admits runs; the table is shared.
    events: fanOutEvents(jsonl, shared.audit),
    auditPath,
    auditSource:
      auditTo === "postgres" ? { kind: "postgres", pool: shared.pool } : { kind: "file", path: auditPath },
    identityKey: () => shared.identityKey,
    async close() {
      jsonl.close();
      await shared.store.close();
    },
  };
}

// Opens the JSONL audit file; if it cannot be, closes the state already opened (`undo`) and throws.
function openAuditFileOr(
  auditPath: string,
  onError: (error: unknown) => void,
  undo: () => void,
): JsonlEventSink {
  try {
    return createJsonlEventSink(auditPath, { onError });
  } catch (cause) {
    undo();
    if (ToolsError.isInstance(cause) && cause.code === "audit_file_unusable")
      throw notRegular(auditPath, cause);
    throw cause;
  }
}

// Who takes a decision from this process, for the record of shared approvals.
function currentUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? "unknown"}`;
  }
}

/** Every configured secret, the model's key included (a server or a model error might echo it). */
function configuredSecrets(config: AgentConfig, env: CliIo["env"]): { values: string[]; warnings: string[] } {
  const secrets = collectConfigSecrets(config);
  const modelKey = config.model ? env[config.model.apiKeyEnv] : undefined;
  return { values: modelKey ? [...secrets.values, modelKey] : secrets.values, warnings: secrets.warnings };
}

/**
 * The redactor of commands that open only the state (`approvals`, `runs`, `audit`): what they print
 * comes from stored requests and runs, which may hold a configured secret a tool was called with.
 * Built from the configuration when it loads; else from what of it can be read (its `state.url`).
 */
export function stateOnlyRedactor(location: RuntimeLocation, io: CliIo): Redactor {
  const file = resolveConfigPath({ flag: location.config, env: io.env, cwd: io.cwd }).path;
  try {
    return createRedactor(configuredSecrets(loadConfig(file, io.env), io.env).values);
  } catch {
    try {
      return createRedactor(readStateConfigOf(file, io.env).secrets);
    } catch {
      return createRedactor([]);
    }
  }
}

/** Loads the configuration, opens the state and the audit trail, and registers the local tools. */
export async function openRuntime(location: RuntimeLocation, io: CliIo): Promise<Runtime> {
  const configPath = resolveConfigPath({ flag: location.config, env: io.env, cwd: io.cwd });
  const config = loadConfig(configPath.path, io.env);
  const secrets = configuredSecrets(config, io.env);
  for (const warning of [...config.warnings, ...secrets.warnings]) {
    writeLine(io.stderr, `warning: ${safeText(warning)}`);
  }
  const redactor = createRedactor(secrets.values);
  const durable = await openStateRuntime(location, io, config.state);
  const { state } = durable;
  // Every event reaches the audit trail through the redactor, whoever emits it.
  const audit: EventSink = { emit: (event) => durable.events.emit(redactJson(event, redactor)) };

  const protectedPaths: ProtectedPaths = {
    configFile: config.file,
    stateDir: durable.stateDir,
    secretPaths: config.protectedPaths,
  };
  const workspaceRealPath = realPathOr(config.workspaceRoot);
  const identityKey = durable.identityKey();
  const sandboxes = createSandboxes({
    policy: config.policy,
    servers: config.servers,
    workspaceRoot: workspaceRealPath,
    protectedPaths: listProtectedPaths(protectedPaths),
    env: io.env,
    events: audit,
  });
  const registry = new ToolRegistry();
  registry.registerAll(
    createLocalTools({
      workspaceRoot: workspaceRealPath,
      alias: config.workspaceRoot,
      protectedPaths,
      events: audit,
    }),
  );
  registry.register(
    createRunCommandTool({
      guard: new PathGuard({ workspaceRoot: workspaceRealPath, alias: config.workspaceRoot, protectedPaths }),
      events: audit,
      confinement: () => sandboxes.commandLaunch(),
      env: { PATH: io.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: io.env.HOME || homedir() },
      allowShell: config.runCommand.allowShell,
      network: config.policy.network,
    }),
  );
  const gate = createPolicyGate({
    policy: config.policy,
    approvals: state.approvals,
    events: audit,
    sandboxFor: (tool) => sandboxes.sandboxFor(tool),
  });
  const voidStale = async (): Promise<void> => {
    await voidStaleApprovals({ approvals: state.approvals, registry, connections, events: audit });
  };
  // Offered to every server: the workspace root (and only it), and forms asked at the terminal.
  const features: McpClientFeatures = {
    roots: [{ uri: pathToFileURL(workspaceRealPath).href, name: "workspace" }],
    elicitation: createElicitationHandler(io, { json: location.json ?? false }),
  };
  const authProviders = new Map<string, OAuthProvider>();
  const reachOf = (server: ServerConfig): ServerReach => {
    if (server.type === "stdio") return { launch: sandboxes.launchFor(server) };
    const authProvider = createServerAuthProvider(server, durable.credentials);
    if (authProvider) authProviders.set(server.name, authProvider);
    return { authProvider };
  };
  const connections = config.servers
    .filter((server) => !server.disabled)
    .map((server) =>
      createServerConnection(
        server,
        registry,
        audit,
        redactor,
        identityKey,
        reachOf(server),
        server.sampling
          ? {
              ...features,
              sampling: {
                maxTokens: server.sampling.maxTokens,
                handler: createConfiguredSampling(server.name, {
                  config,
                  io,
                  json: location.json ?? false,
                  gate,
                  state: { ...durable, events: audit },
                  cwd: workspaceRealPath,
                }),
              },
            }
          : features,
      ),
    );

  return {
    ...durable,
    events: audit,
    config,
    protectedPaths,
    workspaceRealPath,
    redactor,
    registry,
    gate,
    connections,
    authProviders,
    sandboxes,
    async connect(names, signal) {
      // Every command that may run a tool connects first: the sandbox's answer is known before any call.
      await sandboxes.prepare();
      await connectServers(
        names ? connections.filter((connection) => names.includes(connection.name)) : connections,
        io,
        signal,
      );
      await voidStale();
    },
    voidStaleApprovals: voidStale,
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
      await durable.close();
    },
  };
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing: the tools say so on every call; there is no link to resolve.
    return path;
  }
}
