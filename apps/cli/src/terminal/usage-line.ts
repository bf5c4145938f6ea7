import type { ModelUsage } from "@agent/models";
import type { ModelPrices } from "../config/model-config.js";

const COUNT = new Intl.NumberFormat("en-US");

/**
 * `1,234 tokens (1,000 in, 234 out)`, and the cost at the configured prices when there are some
 * (`· $0.0123`); never a cost made up without them.
 */
export function describeUsage(usage: ModelUsage, prices: ModelPrices | undefined): string {
  const total = usage.inputTokens + usage.outputTokens;
  const tokens = `${COUNT.format(total)} tokens (${COUNT.format(usage.inputTokens)} in, ${COUNT.format(usage.outputTokens)} out)`;
  if (prices === undefined) return tokens;
  const cost =
    (usage.inputTokens * prices.inputPerMillion + usage.outputTokens * prices.outputPerMillion) / 1_000_000;
  return `${tokens} · $${cost.toFixed(cost < 1 ? 4 : 2)}`;
}
