import {
  type EventSink,
  type ExecutionRunner,
  emitEvent,
  type GateRequest,
  type GateVerdict,
  NULL_EVENT_SINK,
  type RegisteredTool,
  type ToolGate,
} from "@agent/tools";
import { createAllowMemo } from "./allow-memo.js";
import { approvalFields } from "./approval-decisions.js";
import type { ApprovalDraft, ApprovalRecord, ApprovalRequest, ApprovalStore } from "./approval-store.js";
import { authorize } from "./authorize.js";
import { isFlowSink } from "./flow-sink.js";
import { definePolicy, type NetworkPolicy, type Policy } from "./policy.js";
import { describeMissingIsolation, executeInSandbox, NO_ISOLATION, type Sandbox } from "./sandbox.js";
import { voidApprovalsOfChangedTool, voidApprovalsOfOlderDigestVersion } from "./stale-approvals.js";

/** Options of {@link createPolicyGate}. */
export interface PolicyGateOptions {
  policy: Policy;
  /** Where approval requests and one-shot grants live. */
  approvals: ApprovalStore;
  /** Where admitted calls run; defaults to {@link NO_ISOLATION}. */
  sandbox?: Sandbox;
  /**
   * Where one tool's calls run, when that differs by tool (e.g. the sandbox its server process was
   * launched in); `undefined` falls back to `sandbox`. `null` says no sandbox applies to the tool (the
   * harness's own in-process code, or a remote server): it runs directly, its isolation reads `"none"`,
   * and `sandbox: "required"` does not refuse it.
   */
  sandboxFor?: (tool: RegisteredTool) => Sandbox | null | undefined;
  /** The network policy calls run under (and are bound to); defaults to `policy.network`. */
  network?: NetworkPolicy;
  /** Receives `approval_requested` and `approval_consumed`. */
  events?: EventSink;
  now?: () => Date;
}

/** What a running policy gate may take up anew: which calls it allows, asks about and denies. */
export type PolicyDecisions = Pick<Policy, "defaults" | "rules" | "flows">;

/** The gate of {@link createPolicyGate}: it owns the policy it decides by, and takes up new decisions itself. */
export interface PolicyGate extends ToolGate {
  /** The policy this gate decides by now. */
  policy(): Policy;
  /**
   * Decides by `decisions` from the next call on. The network policy and the sandbox requirement stay
   * those the gate was created with: its sandboxes (and the servers started in them) were made under them.
   * Throws `PolicyError` (`invalid_policy`) for decisions a policy file could not hold, and keeps its own.
   */
  reload(decisions: PolicyDecisions): void;
}

/**
 * The `ToolGate` that `executeToolCall` needs: authorizes each validated call, holds `ask` calls until an
 * approval grant for exactly that action exists (consuming it once), refuses every call whose sandbox
 * does not isolate when isolation is required, and runs admitted calls in their sandbox.
 */
export function createPolicyGate(options: PolicyGateOptions): PolicyGate {
  const { policy, approvals } = options;
  const sandbox = options.sandbox ?? NO_ISOLATION;
  const network = options.network ?? policy.network;
  const events = options.events ?? NULL_EVENT_SINK;
  const now = options.now ?? (() => new Date());
  const required = policy.sandbox === "required";

  // Verdicts hold nothing of the call: two frozen ones per sandbox serve every call.
  const verdicts = new WeakMap<Sandbox, Record<"policy" | "approval", GateVerdict>>();
  const allow = (placement: Placement, via: "policy" | "approval"): GateVerdict => {
    let pair = verdicts.get(placement.sandbox);
    if (!pair) {
      // The network is a function of the sandbox (its own, or the gate's), so one pair per sandbox
      // holds; `required` was checked at admission, before anything ran or a grant was used.
      const { sandbox: chosen, network: enforced } = placement;
      const run: ExecutionRunner = (execute) =>
        executeInSandbox(execute, { network: enforced, sandbox: chosen });
      pair = {
        policy: Object.freeze({ type: "allow", via: "policy", isolation: chosen.name, run }),
        approval: Object.freeze({ type: "allow", via: "approval", isolation: chosen.name, run }),
      };
      verdicts.set(placement.sandbox, pair);
    }
    return pair[via];
  };
  // The two placements most calls get, made once: the gate's own sandbox, and none.
  const defaultPlacement: Placement = Object.freeze({
    sandbox,
    network: sandbox.network ?? network,
    required,
  });
  const unsandboxed: Placement = Object.freeze({ sandbox: NO_ISOLATION, network, required: false });
  const place = (tool: RegisteredTool): Placement => {
    const chosen = options.sandboxFor?.(tool);
    if (chosen === null) return unsandboxed;
    if (chosen === undefined || chosen === sandbox) return defaultPlacement;
    return { sandbox: chosen, network: chosen.network ?? network, required };
  };

  // Once per gate, before its first approval look-up: approvals digested under an older version can
  // never match again, so they are voided with a reason rather than left pending forever. A failed
  // sweep fails that call closed (the executor denies it) and is tried again by the next one.
  let digestSweep: Promise<unknown> | undefined;
  const voidOlderDigests = (): Promise<unknown> => {
    digestSweep ??= voidApprovalsOfOlderDigestVersion(approvals, events).catch((error: unknown) => {
      digestSweep = undefined;
      throw error;
    });
    return digestSweep;
  };

  // Per tool name, the definition this gate last swept approvals for. A call of a definition it has
  // not seen (the first call, or one after a `list_changed` or reconnect changed the tool) voids the
  // tool's pending and granted approvals of any other definition before a grant is looked for: one
  // given for the old definition must not survive to admit a call should that definition come back,
  // nor be approved later by someone reading the old summary. A failed sweep fails the call closed
  // and is tried again by the next one.
  const sweptDefinitions = new Map<string, string>();
  const voidOtherDefinitions = async (tool: { name: string; fingerprint: string }): Promise<void> => {
    if (sweptDefinitions.get(tool.name) === tool.fingerprint) return;
    await voidApprovalsOfChangedTool(approvals, tool, events);
    sweptDefinitions.set(tool.name, tool.fingerprint);
  };

  // Replaced whole by `reload`: a call reads one consistent set of decisions.
  let decisions = decisionsOf(policy);

  /**
   * The sync fast path behind the async port: a call the policy decides alone (allowed, denied,
   * refused for want of isolation) is decided without awaiting anything; only approvals wait.
   */
  const decide = (request: GateRequest): GateVerdict | Promise<GateVerdict> => {
    const { policy: current, allowedOutright, guardsFlows } = decisions;
    const placement = place(request.tool);
    // A call of a tainted run is judged by the flow guard (unless the policy turns it off).
    const taint =
      guardsFlows && request.taint !== undefined && request.taint.length > 0 ? request.taint : undefined;
    // The common case, decided without building an authorization: no request, no digest.
    if (!taint && allowedOutright(request.tool)) {
      if (placement.required && !placement.sandbox.isolates) return sandboxRequired(placement.sandbox);
      return allow(placement, "policy");
    }
    const authorization = authorize(request.tool, request.input, {
      policy: current,
      runId: request.runId,
      callId: request.callId,
      cwd: request.cwd,
      network: placement.network,
      now,
      ...(taint ? { taint, sink: isFlowSink(request.tool, placement) } : {}),
    });
    if (authorization.type === "deny") return { type: "deny", reason: authorization.reason };
    // Checked before any approval is asked for or consumed: a call that cannot run must not use up a grant.
    if (placement.required && !placement.sandbox.isolates) return sandboxRequired(placement.sandbox);
    if (authorization.type === "allow") return allow(placement, "policy");
    return holdOrGrant(authorization.request, placement);
  };

  return {
    // One settled promise for a verdict given at once; a throw of `decide` becomes a rejection.
    async admit(request: GateRequest): Promise<GateVerdict> {
      return decide(request);
    },
    policy: () => decisions.policy,
    reload(next) {
      // Checked as a policy file's are, before anything is swapped: a misspelt decision ("Deny")
      // would otherwise read as ask, and a throw here leaves the gate deciding by what it had.
      const checked = definePolicy({ defaults: next.defaults, rules: [...next.rules], flows: next.flows });
      decisions = decisionsOf(
        Object.freeze({ ...policy, defaults: checked.defaults, rules: checked.rules, flows: checked.flows }),
      );
    },
  };

  /** A call the policy asks about: a grant for exactly this action admits it once, else it waits (or is denied). */
  async function holdOrGrant(approvalRequest: ApprovalDraft, placement: Placement): Promise<GateVerdict> {
    await voidOlderDigests();
    await voidOtherDefinitions({
      name: approvalRequest.toolName,
      fingerprint: approvalRequest.toolFingerprint,
    });

    const { runId, actionDigest } = approvalRequest;
    const useGrant = async (): Promise<boolean> => {
      if (!(await approvals.consumeApprovalGrant(runId, actionDigest))) return false;
      const consumed = await findConsumed(approvals, runId, actionDigest);
      if (consumed) {
        emitEvent(events, { type: "approval_consumed", ...approvalFields(consumed) }, now());
      }
      return true;
    };
    if (await useGrant()) return allow(placement, "approval");
    const latest = await approvals.findLatestApproval(runId, actionDigest);
    // Granted between the two lookups: use it rather than ask again.
    if (latest?.status === "granted" && (await useGrant())) return allow(placement, "approval");
    if (latest?.status === "denied") {
      return { type: "deny", reason: `an operator denied approval ${latest.id} for this exact action` };
    }
    if (latest?.status === "pending") return waitingOn(latest);

    // The store mints the request's id; a concurrent identical call may have saved first, and then
    // the store answers with its request instead (and this call announces nothing).
    const { record, created } = await approvals.saveApprovalRequest(approvalRequest);
    if (created) {
      emitEvent(
        events,
        { type: "approval_requested", effect: record.effect, ...approvalFields(record) },
        now(),
      );
    }
    return waitingOn(record);
  }
}

/** What one set of decisions reads on every call: the policy, its allow memo, whether flows are guarded. */
interface GateDecisions {
  policy: Policy;
  allowedOutright: (tool: RegisteredTool) => boolean;
  guardsFlows: boolean;
}

function decisionsOf(policy: Policy): GateDecisions {
  return { policy, allowedOutright: createAllowMemo(policy), guardsFlows: policy.flows !== "off" };
}

/** The verdict of a call held by `request`: which request, and whether (and by what) the run is tainted. */
function waitingOn(request: ApprovalRequest): GateVerdict {
  const verdict: GateVerdict & { type: "waiting" } = { type: "waiting", requestId: request.id };
  if (request.heldBy === "tainted_flow") verdict.reason = "tainted_flow";
  if (request.taint && request.taint.length > 0) verdict.taint = request.taint;
  return verdict;
}

function sandboxRequired(sandbox: Sandbox): GateVerdict {
  return { type: "deny", reason: `sandbox_required: ${describeMissingIsolation(sandbox)}` };
}

/** Where one tool's calls run and under which network policy, and whether they must be isolated. */
interface Placement {
  sandbox: Sandbox;
  network: NetworkPolicy;
  required: boolean;
}

/**
 * The record whose grant was just consumed. It is normally the latest for the run and digest; if a
 * concurrent identical call has saved a newer request since, the most recently consumed one is it.
 */
async function findConsumed(
  approvals: ApprovalStore,
  runId: string,
  actionDigest: string,
): Promise<ApprovalRecord | undefined> {
  const latest = await approvals.findLatestApproval(runId, actionDigest);
  if (latest?.status === "consumed") return latest;
  const consumed = (await approvals.listApprovals({ status: "consumed" })).filter(
    (record) => record.runId === runId && record.actionDigest === actionDigest,
  );
  return consumed.sort((a, b) => (a.consumedAt ?? "").localeCompare(b.consumedAt ?? "")).at(-1);
}
