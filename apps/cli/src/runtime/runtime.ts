import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { pathToFileURL } from "node:url";
import { messageOf } from "@agent/base";
import { type McpClientFeatures, type McpServerConnection, serverOfToolName } from "@agent/mcp-client";
import type { OAuthProvider } from "@agent/mcp-transport/oauth";
import { createApprovalVoidingSink, createPolicyGate, type Policy, voidStaleApprovals } from "@agent/policy";
import { fanOutEvents, type ToolGate, ToolRegistry } from "@agent/tools";
import { type ServerConfig, userConfigPath } from "../config/index.js";
import {
  createLocalTools,
  createRunCommandTool,
  listProtectedPaths,
  PathGuard,
  type ProtectedPaths,
} from "../local-tools/index.js";
import { createPackageCache, type PackageCache, packageCacheRoot } from "../packages/package-cache.js";
import { createElicitationHandler } from "../terminal/elicitation-prompt.js";
import { createInstallProgress } from "../terminal/install-progress.js";
import { agentCommand, type CliIo, safeText, writeLine } from "../terminal/io.js";
import { createConfiguredSampling } from "./configured-model.js";
import { type ConfiguredRuntime, openConfiguredRuntime } from "./configured-runtime.js";
import { formRefusal } from "./form-policy.js";
import { reloadPolicyFromFile } from "./policy-reload.js";
import { protectedPathsOf } from "./protected-paths-of.js";
import { createRunFlows, noting, type RunFlows } from "./run-flows.js";
import { createSandboxes, type Sandboxes } from "./sandboxes.js";
import { createServerAuthProvider } from "./server-auth.js";
import {
  connectServers,
  createServerConnection,
  type ServerProcesses,
  type ServerReach,
} from "./server-connections.js";
import type { RuntimeLocation } from "./state-runtime.js";
import { windowingGate, withTaintWindows, writesUnnamedFiles } from "./taint-windows.js";

/**
 * The connected world of a command that runs tools or lists servers: the configured state, plus the
 * tools, the gate and the servers' connections. Commands declare the part of it they use.
 */
export interface Runtime extends ConfiguredRuntime {
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
  registry: ToolRegistry;
  gate: ToolGate;
  connections: McpServerConnection[];
  /** The stdio server processes started (their stderr tells why a server failed). */
  serverProcesses: ServerProcesses;
  /** The OAuth provider of each HTTP server that uses OAuth, by server name. */
  authProviders: ReadonlyMap<string, OAuthProvider>;
  /** The bubblewrap sandboxes of the stdio servers and of `run_command`. */
  sandboxes: Sandboxes;
  /** Where the packages of npx and uvx servers are installed, outside the sandbox, and run from inside it. */
  packages: PackageCache;
  /** The flow guard's labels: each server's trust, and the tracker of each agent run. */
  flows: RunFlows;
  /**
   * Connects the named servers (all enabled ones by default) concurrently, showing progress, then
   * voids the approvals of tools whose definition changed ({@link Runtime.voidStaleApprovals}).
   */
  connect(names?: readonly string[], signal?: AbortSignal): Promise<void>;
  /** Voids pending and granted approvals of tools that changed or were removed since they were asked. */
  voidStaleApprovals(): Promise<void>;
  /** Closes every server now (bounded in time, idempotent); resolves to how many were open or opening. */
  closeServers(): Promise<number>;
  /**
   * Reads the policy's decisions (`defaults`, `rules`, `flows`) from the configuration file again; the policy
   * gate decides by them from its next call on. Throws `ConfigError` when the file no longer loads.
   */
  reloadPolicy(): void;
  /** The policy the gate decides by now: the configuration's, as last reloaded (an "always allow" in chat). */
  policy(): Policy;
  /** Closes every server (bounded in time) and the state; never throws. */
  close(): Promise<void>;
}

/**
 * Loads the configuration, opens the state and the audit trail, registers the local tools and
 * prepares (without starting) the servers: the one composition of the connected world. The stdio
 * servers it starts are recorded in `serverProcesses` (the caller's, so that its signal handlers can
 * kill them).
 */
export async function openRuntime(
  location: RuntimeLocation,
  io: CliIo,
  serverProcesses: ServerProcesses,
): Promise<Runtime> {
  const configured = await openConfiguredRuntime(location, io);
  try {
    return composeRuntime(configured, location, io, serverProcesses);
  } catch (error) {
    // A failure after the state opened (a sandbox or a server entry it cannot build) must not
    // leave the database open behind the error: a PostgreSQL pool would keep the process alive.
    await configured.close();
    throw error;
  }
}

function composeRuntime(
  configured: ConfiguredRuntime,
  location: RuntimeLocation,
  io: CliIo,
  serverProcesses: ServerProcesses,
): Runtime {
  const { config, redactor, state, credentials, events: audit } = configured;

  const workspaceRealPath = realPathOr(config.workspaceRoot);
  const packages = openPackageCache(configured, io);
  const protectedPaths = protectedPathsOf(config, configured.stateDir, packages, workspaceRealPath);
  const identityKey = configured.identityKey();
  const sandboxes = createSandboxes({
    policy: config.policy,
    servers: config.servers,
    workspaceRoot: workspaceRealPath,
    protectedPaths: listProtectedPaths(protectedPaths),
    keepReadOnly: [
      ...(protectedPaths.launchFiles ?? []),
      ...(protectedPaths.hostRunPaths ?? []),
      // Hidden once it exists; until then kept from being created, or a sandboxed command could
      // write the user-level file that every project merges.
      ...(config.userFile === undefined ? [userConfigPath(io.env)].filter((path) => path !== undefined) : []),
    ],
    env: io.env,
    events: audit,
    packageMounts: (server) => packages.mountsOf(server),
  });
  const registry = new ToolRegistry();
  registry.registerAll(
    createLocalTools({
      workspaceRoot: workspaceRealPath,
      alias: config.workspaceRoot,
      protectedPaths,
      events: audit,
      taintedFiles: state.taintedFiles,
    }),
  );
  const flows = createRunFlows({
    servers: config.servers,
    taintedFiles: withTaintWindows(state.taintedFiles, state.taintWindows),
    guard: new PathGuard({ workspaceRoot: workspaceRealPath, alias: config.workspaceRoot, protectedPaths }),
    workspaceRoot: workspaceRealPath,
  });
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
  // The gate owns its decisions: `reloadPolicy` hands it the file's, and it decides by them from its next call.
  const policyGate = createPolicyGate({
    policy: config.policy,
    approvals: state.approvals,
    events: audit,
    sandboxFor: (tool) => sandboxes.sandboxFor(tool),
  });
  const gate: ToolGate = windowingGate(policyGate, state.taintWindows, {
    writesUnnamedFiles: (request) => writesUnnamedFiles(request.tool, config.servers, sandboxes),
    ownSource: (request) => {
      const server = serverOfToolName(request.tool.name);
      if (server === undefined || flows.trustOf(server) === "trusted") return undefined;
      return { kind: "tool", name: request.tool.name, server, turn: 0 };
    },
  });
  // The tools of a server known in this process are all listed once it is ready: only then does a
  // tool missing from the registry count as removed (policy's one rule of staleness decides the rest).
  const voidStale = async (): Promise<void> => {
    await voidStaleApprovals({
      approvals: state.approvals,
      registry,
      events: audit,
      sourceListed: (toolName) =>
        connections.find((connection) => connection.name === serverOfToolName(toolName))?.state === "ready",
    });
  };
  const closeServers = async (): Promise<number> => {
    const open = connections.filter((connection) => !["idle", "closed"].includes(connection.state)).length;
    await Promise.all(connections.map((connection) => connection.close()));
    return open;
  };
  // Offered to every server: the workspace root (and only it), and forms asked at the terminal.
  const features: McpClientFeatures = {
    roots: [{ uri: pathToFileURL(workspaceRealPath).href, name: "workspace" }],
    elicitation: noting(
      flows,
      "elicitation",
      createElicitationHandler(io, {
        json: location.json ?? false,
        refusal: (server) => formRefusal(policyGate.policy(), server),
      }),
    ),
  };
  const authProviders = new Map<string, OAuthProvider>();
  const reachOf = (server: ServerConfig): ServerReach => {
    if (server.type === "stdio") {
      return { launch: packages.launchOf(server, sandboxes.launchFor(server)), processes: serverProcesses };
    }
    const authProvider = createServerAuthProvider(server, credentials, agentCommand(io));
    if (authProvider) authProviders.set(server.name, authProvider);
    return { authProvider };
  };
  // A rediscovery (list_changed, reconnect) during a long command voids the approvals of the tools
  // it changed or removed at once, not only at the next connect.
  const approvalVoiding = createApprovalVoidingSink({
    approvals: state.approvals,
    registry,
    events: audit,
    onError: (error) =>
      writeLine(
        io.stderr,
        `warning: approvals of a changed tool could not be voided now (${safeText(messageOf(error))}); each call of it still voids them first`,
      ),
  });
  const discoveryEvents = fanOutEvents(audit, approvalVoiding);
  const connections = config.servers
    .filter((server) => !server.disabled)
    .map((server) =>
      createServerConnection(
        server,
        registry,
        discoveryEvents,
        redactor,
        identityKey,
        reachOf(server),
        server.sampling
          ? {
              ...features,
              sampling: {
                maxTokens: server.sampling.maxTokens,
                handler: noting(
                  flows,
                  "sampling",
                  createConfiguredSampling(server.name, {
                    config,
                    io,
                    json: location.json ?? false,
                    gate,
                    state: configured,
                    cwd: workspaceRealPath,
                  }),
                ),
              },
            }
          : features,
      ),
    );

  return {
    ...configured,
    protectedPaths,
    workspaceRealPath,
    registry,
    gate,
    connections,
    serverProcesses,
    authProviders,
    sandboxes,
    packages,
    flows,
    async connect(names, signal) {
      // Every command that may run a tool connects first: the sandbox's answer is known before any call.
      await sandboxes.prepare();
      const connecting = names
        ? connections.filter((connection) => names.includes(connection.name))
        : connections;
      // Missing packages are installed before any handshake starts: an install is not bound by a
      // server's initialize timeout, and its progress is not mixed into the connection lines.
      const named = new Set(connecting.map((connection) => connection.name));
      await packages.ensureAll(
        config.servers.filter((server) => named.has(server.name)),
        signal,
      );
      await connectServers(connecting, io, signal);
      await voidStale();
    },
    voidStaleApprovals: voidStale,
    closeServers,
    reloadPolicy: () => reloadPolicyFromFile(policyGate, config, io.env),
    policy: () => policyGate.policy(),
    async close() {
      await closeServers();
      await approvalVoiding.settled();
      await configured.close();
    },
  };
}

/** The cache of npx and uvx servers' packages, installing with progress on the terminal and audited. */
export function openPackageCache(configured: Pick<ConfiguredRuntime, "events">, io: CliIo): PackageCache {
  return createPackageCache({
    root: packageCacheRoot(io.env, io.env.HOME || homedir()),
    env: io.env,
    progress: createInstallProgress(io),
    events: configured.events,
  });
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing: the tools say so on every call; there is no link to resolve.
    return path;
  }
}
