import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";
import type { NetworkPolicy } from "./policy.js";

/** How a sandbox is asked to run one admitted call. */
export interface SandboxRunOptions {
  /** The network policy the call was approved under; an isolating sandbox enforces it. */
  network: NetworkPolicy;
}

/**
 * Where admitted calls run. An implementation that confines what `execute` can reach (an OS sandbox
 * such as bubblewrap) sets `isolates: true`; one that only runs it sets `false` and must not claim more.
 */
export interface Sandbox {
  /** Appears in audit events as the call's isolation, e.g. `"bwrap"` or `"none"`. */
  readonly name: string;
  /** Whether it really confines the call (files, processes, network); `sandbox: "required"` needs this. */
  readonly isolates: boolean;
  /**
   * The network it enforces for every call, when that was fixed as it was set up (a server process
   * launched with its own allow-list); the gate then binds this one into approval digests.
   */
  readonly network?: NetworkPolicy;
  run<T>(execute: () => Promise<T>, options: SandboxRunOptions): Promise<T>;
}

/**
 * Runs calls directly in this process with no isolation at all: it enforces neither the network policy
 * nor anything else, says so through `isolates: false`, and is refused wherever isolation is required.
 */
export const NO_ISOLATION: Sandbox = Object.freeze({
  name: "none",
  isolates: false,
  run<T>(execute: () => Promise<T>): Promise<T> {
    return execute();
  },
});

/** Options of {@link executeInSandbox}. */
export interface ExecuteInSandboxOptions {
  network: NetworkPolicy;
  /** Defaults to {@link NO_ISOLATION}. */
  sandbox?: Sandbox;
  /** Refuse to run unless the sandbox isolates. */
  required?: boolean;
}

/**
 * Runs `execute` in the sandbox; when isolation is `required` and the sandbox does not isolate, throws
 * `PolicyError` (`sandbox_required`) without running anything.
 */
export function executeInSandbox<T>(execute: () => Promise<T>, options: ExecuteInSandboxOptions): Promise<T> {
  const sandbox = options.sandbox ?? NO_ISOLATION;
  if (options.required === true && !sandbox.isolates) return Promise.reject(sandboxRequiredError(sandbox));
  // The sandbox's own promise rather than an async wrapper's (two more microtask turns per call);
  // a sandbox that throws at once rejects, as an async function would.
  try {
    return Promise.resolve(sandbox.run(execute, { network: options.network }));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Why a call was refused when isolation is required but `sandbox` does not isolate. */
export function describeMissingIsolation(sandbox: Sandbox): string {
  return `the policy requires an isolating sandbox, but the configured one ("${sandbox.name}") does not isolate, so the call was refused and never attempted; configure an isolating sandbox or set the policy's sandbox to "optional"`;
}

function sandboxRequiredError(sandbox: Sandbox): PolicyError {
  return new PolicyError(POLICY_ERROR_CODES.sandboxRequired, describeMissingIsolation(sandbox));
}
