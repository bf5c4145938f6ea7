import { homedir } from "node:os";
import { mcpToolGroup } from "@agent/mcp-client";
import type { StdioLaunch } from "@agent/mcp-transport/stdio";
import { POLICY_ERROR_CODES, type Policy, PolicyError, type Sandbox } from "@agent/policy";
import {
  type BwrapPreflight,
  type Confinement,
  createBwrapSandbox,
  type ProxyDecision,
} from "@agent/policy/bwrap";
import { type EventSink, emitEvent, type RegisteredTool } from "@agent/tools";
import type { ServerConfig, StdioServerConfig } from "../config/index.js";

/** How one server (or `run_command`) runs: its isolation as `mcp list --json` says it, and why. */
export interface IsolationReport {
  isolation: "bwrap" | "none";
  /** One line for people: what is isolated, or why nothing is. */
  detail: string;
}

/** Options of {@link createSandboxes}. */
export interface SandboxesOptions {
  policy: Policy;
  servers: readonly ServerConfig[];
  /** Where `run_command` may write. */
  workspaceRoot: string;
  /** What no sandboxed process may see: the config file, the state directory, credential stores. */
  protectedPaths: readonly string[];
  /** What sandboxed processes may read but never change, even inside a write grant: the servers' launch files. */
  keepReadOnly: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  events: EventSink;
  /** What a server runs from that the harness installed (the package cache's entry): shown read-only inside. */
  packageMounts?: (server: StdioServerConfig) => readonly string[];
}

/** The runtime's sandboxes: one bubblewrap preflight, a confinement per stdio server and one for commands. */
export interface Sandboxes {
  /** The home directory the sandbox hides behind an empty one. */
  readonly home: string;
  /** Runs the preflight (once); everything else reads its answer. */
  prepare(): Promise<void>;
  /** The launch for a stdio server: isolated, refused (required, unavailable) or, if optional, unisolated. */
  launchFor(server: StdioServerConfig): StdioLaunch;
  /**
   * The confinement `run_command` launches commands in. Rejects when bubblewrap cannot run, whatever
   * `policy.sandbox` says: a command the model chose never runs unisolated.
   */
  commandLaunch(): Promise<Confinement>;
  /** For the gate: the sandbox a tool's calls run in; `null` when none applies (in-process, remote). */
  sandboxFor(tool: RegisteredTool): Sandbox | null | undefined;
  /** For `mcp list`: how a server runs (after `prepare`). */
  isolationOf(server: ServerConfig): IsolationReport;
  /** The connections the allow-list proxy refused a server in this process (`host:port`), oldest first. */
  refusedConnections(server: string): string[];
}

/** The name `run_command` is registered under (its calls run in the command confinement). */
export const RUN_COMMAND_TOOL = "run_command";

// What a stdio server or command runs as when isolation is optional and bubblewrap unavailable. Its
// network is "allow": nothing restricts it, and approvals given for an isolated run must not match.
const UNISOLATED: Sandbox = Object.freeze({
  name: "none",
  isolates: false,
  network: "allow",
  run: <T>(execute: () => Promise<T>) => execute(),
});

/** Builds the runtime's {@link Sandboxes}; nothing runs until `prepare` or a launch. */
export function createSandboxes(options: SandboxesOptions): Sandboxes {
  const { policy, events } = options;
  const required = policy.sandbox === "required";
  const refused = new Map<string, string[]>();
  const auditConnection =
    (subject: string) =>
    ({ host, port, allowed }: ProxyDecision): void => {
      if (!allowed) refused.set(subject, [...(refused.get(subject) ?? []), `${host}:${port}`].slice(-10));
      emitEvent(events, { type: "sandbox_connection", subject, host, port, allowed });
    };
  const home = options.env.HOME || homedir();
  const bwrap = createBwrapSandbox({
    env: options.env,
    home,
    hide: options.protectedPaths,
    keepReadOnly: options.keepReadOnly,
  });
  const confinements = new Map<string, Confinement>();
  const confinementOf = (server: StdioServerConfig): Confinement => {
    let confinement = confinements.get(server.name);
    if (!confinement) {
      confinement = bwrap.confine({
        ...server.sandbox,
        read: [...server.sandbox.read, ...(options.packageMounts?.(server) ?? [])],
        // The configuration names the server's script: its project must stay readable for it to start.
        exposeScriptProjects: true,
        onProxyDecision: auditConnection(`mcp:${server.name}`),
      });
      confinements.set(server.name, confinement);
    }
    return confinement;
  };
  const commands = bwrap.confine({
    network: policy.network,
    write: [options.workspaceRoot],
    // Its directory lies in the workspace (a write grant) and its executable is named by the model:
    // nothing of the command's own is exposed beyond what the grants show.
    exposeLaunchPaths: false,
    onProxyDecision: auditConnection(RUN_COMMAND_TOOL),
  });
  let preflight: BwrapPreflight | undefined;
  const prepare = async (): Promise<void> => {
    preflight ??= await bwrap.preflight();
  };
  const reported = new Set<string>();
  const reportUnisolated = (subject: string, reason: string): void => {
    if (reported.has(subject)) return;
    reported.add(subject);
    emitEvent(events, { type: "sandbox_unavailable", subject, required, reason });
  };

  return {
    home,
    prepare,
    launchFor(server) {
      return async (spec) => {
        await prepare();
        if (preflight && !preflight.ok) {
          reportUnisolated(`mcp:${server.name}`, preflight.reason);
          if (!required) return spec;
        }
        // Rejects when bubblewrap is unavailable: a required sandbox starts nothing.
        return confinementOf(server).launch(spec);
      };
    },
    async commandLaunch() {
      await prepare();
      if (preflight && !preflight.ok) {
        reportUnisolated(RUN_COMMAND_TOOL, preflight.reason);
        throw new PolicyError(
          POLICY_ERROR_CODES.sandboxUnavailable,
          `run_command runs only inside the sandbox, even when policy.sandbox is "optional", and the sandbox is unavailable: ${commandSandboxAdvice(preflight.reason)}`,
        );
      }
      return commands;
    },
    sandboxFor(tool) {
      if (tool.name === RUN_COMMAND_TOOL && tool.group === undefined) {
        return preflight?.ok ? commands.sandbox : UNISOLATED;
      }
      const server = options.servers.find(
        (candidate) => tool.group !== undefined && mcpToolGroup(candidate.name) === tool.group,
      );
      // The harness's own in-process tools, and tools of remote servers: no local sandbox applies.
      if (server?.type !== "stdio") return null;
      return preflight?.ok ? confinementOf(server).sandbox : UNISOLATED;
    },
    isolationOf(server) {
      if (server.type !== "stdio") {
        return { isolation: "none", detail: "remote (HTTP): the local sandbox does not apply" };
      }
      if (preflight?.ok) return { isolation: "bwrap", detail: `bwrap, ${describeGrants(server)}` };
      const reason = preflight?.reason ?? "the sandbox was not prepared";
      return required
        ? { isolation: "none", detail: `not started: isolation is required but ${reason}` }
        : { isolation: "none", detail: `NOT ISOLATED (runs with your rights): ${reason}` };
    },
    refusedConnections: (server) => [...new Set(refused.get(`mcp:${server}`) ?? [])],
  };
}

// The preflight's advice ends with "or set the policy's sandbox to optional", which does not help a
// command: it is never run unisolated.
function commandSandboxAdvice(reason: string): string {
  return reason.replace(/[,;]? or set the policy's "sandbox" to "optional" to run unisolated$/, "");
}

function describeGrants(server: StdioServerConfig): string {
  const { network, write, read } = server.sandbox;
  const net =
    network === "deny"
      ? "network none"
      : network === "allow"
        ? "network open"
        : `network ${network.allowHosts.join(", ")}`;
  const writes = write.length === 0 ? "writes nowhere" : `writes ${write.join(", ")}`;
  return [net, writes, ...(read.length > 0 ? [`reads also ${read.join(", ")}`] : [])].join("; ");
}
