import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";
import type { NetworkPolicy } from "./policy.js";

// A DNS name of letters, digits and hyphens, labels of 1-63 characters: no ports, schemes, paths or
// wildcards, so what an allow-list says is exactly what the proxy compares against.
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Whether `host` (already lowercase, no trailing dot) is a host name an allow-list may hold. */
export function isAllowableHostName(host: string): boolean {
  return HOST_NAME.test(host);
}

/** A host name as the allow-list compares it: lowercase, without a trailing dot. */
export function normalizeHostName(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, "");
}

/**
 * The network policy of an allow-list of host names: `deny` for an empty list (never "everything"),
 * otherwise the names lowercased, deduplicated and sorted, so the same list always digests alike.
 * Throws `PolicyError` (`invalid_policy`) naming the first entry that is not a plain host name.
 */
export function allowHostsPolicy(hosts: readonly string[]): NetworkPolicy {
  const normalized = new Set<string>();
  for (const host of hosts) {
    const name = normalizeHostName(host);
    if (!isAllowableHostName(name)) {
      throw new PolicyError(
        POLICY_ERROR_CODES.invalidPolicy,
        `${JSON.stringify(host)} is not a host name; list plain names such as "api.github.com" (no scheme, port, path or wildcard).`,
      );
    }
    normalized.add(name);
  }
  return normalized.size === 0
    ? "deny"
    : Object.freeze({ allowHosts: Object.freeze([...normalized].sort()) });
}

/** The host names a network policy lets through: none for `deny`, `undefined` (all) for `allow`. */
export function allowedHostsOf(network: NetworkPolicy): readonly string[] | undefined {
  if (network === "deny") return [];
  if (network === "allow") return undefined;
  return network.allowHosts;
}
