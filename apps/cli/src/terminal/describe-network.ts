import type { NetworkPolicy } from "@agent/policy";
import { canonicalJson, type JsonValue } from "@agent/tools";

/** A network policy on one line: `deny`, `allow`, or its canonical JSON (an allow-list of hosts). */
export function describeNetwork(network: NetworkPolicy): string {
  return typeof network === "string" ? network : canonicalJson(network as unknown as JsonValue);
}
