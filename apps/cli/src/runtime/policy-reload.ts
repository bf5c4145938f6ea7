import type { PolicyGate } from "@agent/policy";
import { loadConfig } from "../config/index.js";

/** Where the configuration a command started with came from. */
export interface PolicySource {
  file: string;
  userFile?: string | undefined;
}

/**
 * Reads the policy's decisions (`defaults`, `rules`, `flows`) from the configuration file again and
 * hands them to the gate, which decides by them from its next call on (it keeps the network policy
 * and sandbox requirement its servers were started under). Throws `ConfigError` when the file no
 * longer loads; the gate then keeps the decisions it had.
 */
export function reloadPolicyFromFile(
  gate: Pick<PolicyGate, "reload">,
  source: PolicySource,
  env: Readonly<Record<string, string | undefined>>,
): void {
  gate.reload(loadConfig(source.file, env, { userFile: source.userFile }).policy);
}
