import { type Policy, resolvePolicyDecision } from "@agent/policy";
import type { RegisteredTool } from "@agent/tools";

/**
 * The loop's `isOffered` for the CLI's runs: whether the policy of the moment (`current()`, which a
 * reload replaces whole) does not deny the tool outright. The loop asks about every tool at every
 * turn; the answers are kept per policy and tool object (a changed definition is a new object), so a
 * turn with many tools costs lookups, and a reload or a rediscovery is answered afresh at once.
 */
export function createOfferedByPolicy(current: () => Policy): (tool: RegisteredTool) => boolean {
  let answeredFor: Policy | undefined;
  let answers = new WeakMap<RegisteredTool, boolean>();
  return (tool) => {
    const policy = current();
    if (policy !== answeredFor) {
      answeredFor = policy;
      answers = new WeakMap();
    }
    let offered = answers.get(tool);
    if (offered === undefined) {
      offered = resolvePolicyDecision(policy, tool).decision !== "deny";
      answers.set(tool, offered);
    }
    return offered;
  };
}
