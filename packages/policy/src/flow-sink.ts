import type { RegisteredTool } from "@agent/tools";
import type { NetworkPolicy } from "./policy.js";
import { NO_ISOLATION, type Sandbox } from "./sandbox.js";

/**
 * Whether a call can carry data out or act on the world, which the flow guard holds in a tainted
 * run: an `external` tool, or one that runs in a sandbox of its own (a command, a local server)
 * whose network is open or not enforced. The harness's in-process tools (no sandbox applies,
 * {@link NO_ISOLATION}) are judged by their effect alone.
 */
export function isFlowSink(
  tool: Pick<RegisteredTool, "effect">,
  runsIn: { sandbox: Sandbox; network: NetworkPolicy },
): boolean {
  if (tool.effect === "external") return true;
  if (runsIn.sandbox === NO_ISOLATION) return false;
  return runsIn.network !== "deny" || !runsIn.sandbox.isolates;
}
