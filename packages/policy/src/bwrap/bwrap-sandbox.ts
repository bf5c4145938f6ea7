import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { POLICY_ERROR_CODES, PolicyError } from "../errors.js";
import type { NetworkPolicy } from "../policy.js";
import type { Sandbox } from "../sandbox.js";
import { type AllowListProxy, type ProxyDecision, startAllowListProxy } from "./allow-list-proxy.js";
import { buildBwrapCommand } from "./bwrap-arguments.js";
import { type BwrapPreflight, preflightBwrap } from "./bwrap-preflight.js";
import { findExecutable } from "./find-executable.js";
import { createPidsCgroup } from "./pids-cgroup.js";
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
                : ownFiles(spec, grants.exposeScriptProjects === true)),
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
          const release = async (): Promise<void> => {
            await proxy?.close();
            await cgroup?.remove();
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
            // The shell moves itself into the cgroup, then becomes prlimit, then bwrap: one pid throughout.
            const wrapped = cgroup
              ? {
                  command: "/bin/sh",
                  args: ["-c", 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, built.command, ...built.args],
                }
              : built;
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

// The process's own files stay readable even under the hidden home and the private /tmp: its
// working directory, the executable it starts as (a PATH lookup uses the environment it will get),
// and, for a configured server, the project of every script it is given as an argument (`node
// /path/to/server.mjs`): the script's imports resolve through that project's node_modules, whose
// links may point anywhere in it. Protected paths inside stay hidden: they are mounted after these.
function ownFiles(spec: ProcessSpec, withScriptProjects: boolean): string[] {
  const files: string[] = [];
  if (spec.cwd !== undefined) files.push(resolve(spec.cwd));
  const executable = executableOf(spec);
  if (executable !== undefined) files.push(executable);
  for (const arg of withScriptProjects ? spec.args : []) {
    const script = resolve(spec.cwd ?? process.cwd(), arg);
    if (isFile(script)) files.push(projectOf(script));
  }
  return files;
}

// The executable a spec starts (a PATH lookup uses the environment it will get), if it is one.
function executableOf(spec: ProcessSpec): string | undefined {
  const named = isAbsolute(spec.command)
    ? spec.command
    : spec.command.includes("/")
      ? resolve(spec.cwd ?? process.cwd(), spec.command)
      : spec.command;
  return findExecutable(named, spec.env.PATH);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// The outermost directory above `file` that has a node_modules (a workspace root), else its folder.
function projectOf(file: string): string {
  let project = dirname(file);
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules"))) project = dir;
  }
  return project;
}
