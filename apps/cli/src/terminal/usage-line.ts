import type { ModelUsage } from "@agent/models";
import type { ModelPrices } from "../config/model-config.js";

/**
 * `1,234 tokens (1,000 in, 234 out)`, and the cost at the configured prices when there are some
 * (`· $0.0123`); never a cost made up without them.
 */
export function describeUsage(usage: ModelUsage, prices: ModelPrices | undefined): string {
  const total = usage.inputTokens + usage.outputTokens;
  const tokens = `${formatCount(total)} tokens (${formatCount(usage.inputTokens)} in, ${formatCount(usage.outputTokens)} out)`;
  if (prices === undefined) return tokens;
  const cost =
    (usage.inputTokens * prices.inputPerMillion + usage.outputTokens * prices.outputPerMillion) / 1_000_000;
  return `${tokens} · $${cost.toFixed(cost < 1 ? 4 : 2)}`;
}

/** `12345` as `12,345`, whatever the locale of the machine. */
function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}
