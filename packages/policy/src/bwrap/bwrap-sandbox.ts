import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { POLICY_ERROR_CODES, PolicyError } from "../errors.js";
import type { NetworkPolicy } from "../policy.js";
import type { Sandbox } from "../sandbox.js";
import { type AllowListProxy, type ProxyDecision, startAllowListProxy } from "./allow-list-proxy.js";
import { buildBwrapCommand } from "./bwrap-arguments.js";
import { type BwrapPreflight, preflightBwrap } from "./bwrap-preflight.js";
import { executableOf, launchPathsOf } from "./launch-paths.js";
import { createPidsCgroup } from "./pids-cgroup.js";
import { releaseReservedNames } from "./reserved-names.js";
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits, type SandboxProfile } from "./sandbox-profile.js";

/** A process as it would be started without a sandbox. */
export interface ProcessSpec {
  command: string;
  args: readonly string[];
  /** The whole environment it gets; the sandbox passes exactly this in (bwrap starts with nothing else). */
  env: Readonly<Record<string, string>>;
  cwd: string | undefined;
}

/** The same process, wrapped in bubblewrap; `dispose` stops its proxy once it has exited. */
export interface ConfinedProcess {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  dispose(): Promise<void>;
}

/** What one process (a server, a command) is granted on top of the read-only system. */
export interface ConfinementGrants {
  /** Extra readable paths (e.g. under the hidden home). */
  read?: readonly string[];
  /** Writable paths. */
  write?: readonly string[];
  network: NetworkPolicy;
  /**
   * Keep the project of every script argument readable (`node /srv/proj/server.mjs`: the whole
   * `/srv/proj`, where its imports resolve). For processes a trusted configuration names (MCP
   * servers); never for commands a model chooses, whose arguments could name any file.
   */
  exposeScriptProjects?: boolean;
  /**
   * Keep the process's working directory and executable readable even under the hidden home or the
   * private `/tmp` (default true). Turn it off for commands a model chooses: a directory it names may
   * be swapped for a link to anywhere between the check and the launch, and a bind follows links.
   */
  exposeLaunchPaths?: boolean;
  /** Receives each connection this confinement's proxy allowed or refused (after the sandbox-wide one); must not throw. */
  onProxyDecision?: (decision: ProxyDecision) => void;
}

/** One kind of confined process: the `Sandbox` the gate reports it under, and how to launch it. */
export interface Confinement {
  /** `name: "bwrap"`, `isolates: true`, and the network it enforces. */
  readonly sandbox: Sandbox;
  /**
   * Wraps `spec` in bubblewrap (running the preflight first, once per sandbox). Rejects with
   * `PolicyError` (`sandbox_unavailable`) when bubblewrap cannot run here: then nothing may be started.
   */
  launch(spec: ProcessSpec): Promise<ConfinedProcess>;
}

/** Options of {@link createBwrapSandbox}. */
export interface BwrapSandboxOptions {
  /** Where `AGENT_BWRAP` and `PATH` are read; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The home directory to hide; defaults to `os.homedir()`. */
  home?: string;
  /** Paths never visible inside (the harness's config file, state directory, credential stores). */
  hide?: readonly string[];
  /** Paths that stay read-only even inside a write grant (the files configured servers run from). */
  keepReadOnly?: readonly string[];
  limits?: Partial<ResourceLimits>;
  /** How the network proxy resolves allowed host names; defaults to the system resolver. */
  resolveHost?: (host: string) => Promise<string>;
  /** Receives each connection the proxy allowed or refused; must not throw. */
  onProxyDecision?: (decision: ProxyDecision) => void;
}

/** Bubblewrap for this process: one preflight, then any number of confinements. */
export interface BwrapSandbox {
  /** Runs the preflight on first use and returns the same answer ever after. */
  preflight(): Promise<BwrapPreflight>;
  /** A confinement with these grants. */
  confine(grants: ConfinementGrants): Confinement;
}

const FORWARDER = fileURLToPath(new URL("./proxy-forwarder.mjs", import.meta.url));

/**
 * The bubblewrap sandbox: every process it launches gets its own pid, ipc, uts, user and network
 * namespaces, dies with its parent, sees the system read-only, an empty home, a private size-limited
 * `/tmp`, no trace of the hidden paths, and writes only where granted; its network is none, everything,
 * or an allow-list enforced by a proxy outside.
 */
export function createBwrapSandbox(options: BwrapSandboxOptions = {}): BwrapSandbox {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const hide = [...(options.hide ?? [])];
  const keepReadOnly = [...(options.keepReadOnly ?? [])];
  const limits: ResourceLimits = { ...DEFAULT_RESOURCE_LIMITS, ...options.limits };
  let checked: Promise<BwrapPreflight> | undefined;
  const preflight = (): Promise<BwrapPreflight> => {
    checked ??= preflightBwrap(env);
    return checked;
  };

  return {
    preflight,
    confine(grants) {
      const { network } = grants;
      const sandbox: Sandbox = Object.freeze({
        name: "bwrap",
        isolates: true,
        network,
        run: <T>(execute: () => Promise<T>) => execute(),
      });
      return {
        sandbox,
        async launch(spec) {
          const ready = await preflight();
          if (!ready.ok) {
            throw new PolicyError(
              POLICY_ERROR_CODES.sandboxUnavailable,
              `the sandbox is unavailable: ${ready.reason}`,
            );
          }
          // Inside, bwrap would only say "execvp: No such file" on stderr and exit 1; say it here.
          if (executableOf(spec) === undefined) {
            throw new PolicyError(
              POLICY_ERROR_CODES.commandNotFound,
              `${JSON.stringify(spec.command)} is not an executable file (command not found: check the command and the PATH passed in env)`,
            );
          }
          const profile: SandboxProfile = {
            read: [
              ...(grants.exposeLaunchPaths === false
                ? []
                : launchPathsOf(spec, grants.exposeScriptProjects === true, [home, "/tmp"])),
              ...(grants.read ?? []),
            ],
            write: [...(grants.write ?? [])],
            keepReadOnly,
            hide,
            home,
            network,
            limits,
          };
          let proxy: AllowListProxy | undefined;
          const cgroup =
            ready.pidsCgroupParent === undefined
              ? undefined
              : createPidsCgroup(ready.pidsCgroupParent, limits.processes);
          let reserved: readonly string[] = [];
          const release = async (): Promise<void> => {
            await proxy?.close();
            await cgroup?.remove();
            releaseReservedNames(reserved);
          };
          try {
            if (typeof network === "object") {
              proxy = await startAllowListProxy({
                allowHosts: network.allowHosts,
                ...(options.resolveHost ? { resolve: options.resolveHost } : {}),
                onDecision: (decision) => {
                  options.onProxyDecision?.(decision);
                  grants.onProxyDecision?.(decision);
                },
              });
            }
            const built = buildBwrapCommand({
              bwrap: ready.bwrap,
              prlimit: ready.prlimit,
              profile,
              command: spec.command,
              args: spec.args,
              cwd: spec.cwd,
              ...(proxy
                ? { proxy: { socketPath: proxy.socketPath, node: process.execPath, forwarder: FORWARDER } }
                : {}),
            });
            reserved = built.reserved;
            // The shell moves itself into the cgroup, then becomes prlimit, then bwrap: one pid throughout.
            const wrapped = cgroup
              ? {
                  command: "/bin/sh",
                  args: ["-c", 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, built.command, ...built.args],
                }
              : { command: built.command, args: built.args };
            return { ...wrapped, env: { ...spec.env }, cwd: spec.cwd, dispose: release };
          } catch (error) {
            await release();
            throw error;
          }
        },
      };
    },
  };
}
