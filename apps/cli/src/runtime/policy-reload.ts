import { type ApprovalStore, createPolicyGate, type Policy } from "@agent/policy";
import type { EventSink, RegisteredTool, ToolGate } from "@agent/tools";
import { loadConfig } from "../config/index.js";
import type { Sandboxes } from "./sandboxes.js";

/** The policy gate of one command, which reloads its own decisions from the configuration file. */
export interface ReloadableGate {
  /** Decides every call by the decisions current at that call. */
  readonly gate: ToolGate;
  /** The decisions the gate decides by now, for what is not a call through it (a server's forms). */
  policy(): Policy;
  /**
   * Reads the decisions (`defaults`, `rules`, `flows`) from the configuration file again; the gate
   * decides by them from its next call on. Throws `ConfigError` when the file no longer loads.
   */
  reload(): void;
}

/** Options of {@link createReloadableGate}. */
export interface ReloadableGateOptions {
  /** The policy the command started with, and where its configuration came from. */
  config: { policy: Policy; file: string; userFile?: string | undefined };
  env: Readonly<Record<string, string | undefined>>;
  approvals: ApprovalStore;
  events: EventSink;
  sandboxes: Pick<Sandboxes, "sandboxFor">;
}

/** The policy gate over `approvals`, under the sandboxes the command's servers were started with. */
export function createReloadableGate(options: ReloadableGateOptions): ReloadableGate {
  const { config, env, approvals, events, sandboxes } = options;
  const gateFor = (policy: Policy): ToolGate =>
    createPolicyGate({
      policy,
      approvals,
      events,
      sandboxFor: (tool: RegisteredTool) => sandboxes.sandboxFor(tool),
    });
  let current = config.policy;
  let policyGate = gateFor(current);
  return {
    gate: { admit: (request) => policyGate.admit(request) },
    policy: () => current,
    reload() {
      const reloaded = loadConfig(config.file, env, { userFile: config.userFile }).policy;
      // Only the decisions: the network policy and sandbox requirement stay those the servers and
      // sandboxes of this command were started under.
      current = Object.freeze({
        ...config.policy,
        defaults: reloaded.defaults,
        rules: reloaded.rules,
        flows: reloaded.flows,
      });
      policyGate = gateFor(current);
    },
  };
}
