import type { RunResult } from "@agent/loop";
import type { ModelUsage } from "@agent/models";
import type { ModelPrices } from "../config/model-config.js";

/** Where one `agent chat` stands: its run (once the first prompt started it) and what it used. */
export interface ChatState {
  runId: string | undefined;
  provider: string;
  model: string;
  prices: ModelPrices | undefined;
  /** Tokens of the run's model turns so far (the saved totals, turns before a cancel included). */
  usage: ModelUsage;
  /** How the latest turn stopped; a `waiting` one is settled before the next prompt goes on. */
  last: RunResult | undefined;
}
