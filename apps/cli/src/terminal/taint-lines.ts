import type { ApprovalRecord } from "@agent/policy";
import type { FlowSource } from "@agent/tools";
import { safeLine } from "./io.js";

/**
 * Why the flow guard held a call (or, for a rule's `ask` in a tainted run, that the run is tainted),
 * as lines for the person: a warning, then every untrusted source with the turn it entered at.
 * Empty for a call of a clean run. The texts come from servers and files: escaped.
 */
export function taintLines(record: Pick<ApprovalRecord, "heldBy" | "taint">): {
  warning: string[];
  sources: string[];
} {
  const taint = record.taint ?? [];
  if (taint.length === 0) return { warning: [], sources: [] };
  return {
    warning: [
      record.heldBy === "tainted_flow"
        ? "HELD BY THE FLOW GUARD: the policy allows this call, but the run has taken in untrusted content,"
        : "The run has taken in untrusted content,",
      "which may carry instructions to send your data elsewhere. It came from:",
    ],
    sources: taint.map((source) => `- ${safeLine(describeFlowSource(source))}`),
  };
}

/** One untrusted source as the person reads it: what, from where, and at which turn. */
export function describeFlowSource(source: FlowSource): string {
  const from = source.server === undefined ? "" : ` (server "${source.server}")`;
  return `${describeWhat(source)}${from}, at turn ${source.turn}`;
}

function describeWhat(source: FlowSource): string {
  switch (source.kind) {
    case "tool":
      return `the result of ${source.name}`;
    case "file":
      return `the file ${source.name}, written by a tainted run`;
    case "sampling":
      return "a sampling request";
    case "elicitation":
      return "an elicitation request";
    default:
      return `the ${source.kind} ${source.name}`;
  }
}
