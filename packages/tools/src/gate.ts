import type { FlowSource } from "./flow.js";
import type { RegisteredTool } from "./tool.js";

/** What the gate is asked about: one validated call, before anything runs. */
export interface GateRequest {
  tool: RegisteredTool;
  /** The validated input, exactly what will execute. */
  input: unknown;
  runId: string;
  callId: string;
  cwd: string;
  signal: AbortSignal;
  /**
   * The untrusted sources the run had taken in when the call was made (see `FlowSource`); absent or
   * empty for a clean run. A flow-guarding gate holds sinks of a tainted run and binds the taint.
   */
  taint?: readonly FlowSource[] | undefined;
}

/** Runs an admitted call, e.g. inside a sandbox. */
export type ExecutionRunner = <T>(execute: () => Promise<T>) => Promise<T>;

/** The gate's answer. */
export type GateVerdict =
  | {
      type: "allow";
      /** `policy`: the policy allows it; `approval`: a one-shot approval grant was consumed for it. */
      via: "policy" | "approval";
      /** What it runs in (the sandbox's name), for the audit trail. */
      isolation: string;
      run: ExecutionRunner;
    }
  | { type: "deny"; reason: string }
  | {
      type: "waiting";
      requestId: string;
      /** `tainted_flow`: held by the flow guard (the run is tainted), not by a rule's `ask`. */
      reason?: "tainted_flow";
      /** The untrusted sources that tainted the run, when it is tainted. */
      taint?: readonly FlowSource[] | undefined;
    };

/**
 * The one checkpoint between a validated call and its execution: authorization, approvals and the
 * sandbox live behind it (`@agent/policy` implements it). The executor requires one; there is no
 * default that allows everything.
 */
export interface ToolGate {
  /**
   * The verdict on one call, always as a promise (an implementation that decides at once returns an
   * already settled one; issue 27: one shape to implement and to call). Throwing, rejecting or
   * answering with anything but a verdict denies the call.
   */
  admit(request: GateRequest): Promise<GateVerdict>;
}
