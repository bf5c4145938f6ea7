import { formatAllowEntry, parseAllowEntry } from "./allow-entry.js";
import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";
import type { NetworkPolicy } from "./policy.js";

/**
 * The network policy of an allow-list of host names and `host:port` entries (see {@link parseAllowEntry}):
 * `deny` for an empty list (never "everything"), otherwise the entries normalized, deduplicated and
 * sorted, so the same list always digests alike. Throws `PolicyError` (`invalid_policy`) naming the
 * first entry that is not a host name, or a loopback host without a port.
 */
export function allowHostsPolicy(hosts: readonly string[]): NetworkPolicy {
  const normalized = new Set<string>();
  for (const host of hosts) {
    const parsed = parseAllowEntry(host);
    if (!parsed.ok) throw new PolicyError(POLICY_ERROR_CODES.invalidPolicy, parsed.problem);
    normalized.add(formatAllowEntry(parsed.entry));
  }
  return normalized.size === 0
    ? "deny"
    : Object.freeze({ allowHosts: Object.freeze([...normalized].sort()) });
}

/** The allow-list entries a network policy lets through: none for `deny`, `undefined` (all) for `allow`. */
export function allowedHostsOf(network: NetworkPolicy): readonly string[] | undefined {
  if (network === "deny") return [];
  if (network === "allow") return undefined;
  return network.allowHosts;
}
