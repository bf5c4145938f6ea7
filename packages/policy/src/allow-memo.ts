import type { RegisteredTool } from "@agent/tools";
import { resolvePolicyDecision } from "./authorize.js";
import type { Policy } from "./policy.js";

/**
 * Whether the policy allows a tool outright, remembered per tool object: the policy's rules are
 * matched against a tool's name once, not on every call (about 1.5 µs of a governed call). Each
 * answer is kept with the name and effect it was computed for and recomputed if either changed.
 * Only a policy that cannot change is remembered: frozen plain data all the way down (what
 * `definePolicy` returns). Any other is read anew per call, so a change made in place applies at once.
 */
export function createAllowMemo(policy: Policy): (tool: RegisteredTool) => boolean {
  if (!isImmutablePolicy(policy)) return (tool) => resolvePolicyDecision(policy, tool).decision === "allow";
  const answers = new WeakMap<RegisteredTool, { name: string; effect: string; allowed: boolean }>();
  return (tool) => {
    const known = answers.get(tool);
    if (known && known.name === tool.name && known.effect === tool.effect) return known.allowed;
    const allowed = resolvePolicyDecision(policy, tool).decision === "allow";
    answers.set(tool, { name: tool.name, effect: tool.effect, allowed });
    return allowed;
  };
}

/** The policy, its defaults, its rule list and every rule: each frozen, plain, with data members only. */
function isImmutablePolicy(policy: Policy): boolean {
  // The container is checked before its members are read: a getter could answer differently each time.
  if (!isFrozenData(policy) || !isFrozenData(policy.defaults) || !isFrozenData(policy.rules)) return false;
  return policy.rules.every((rule) => isFrozenData(rule));
}

function isFrozenData(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !Object.isFrozen(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return false;
  return Object.values(Object.getOwnPropertyDescriptors(value)).every(
    (member) => member.get === undefined && member.set === undefined,
  );
}
