import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link PolicyError}: misuse or refusals the caller must act on, never a call outcome. */
export const POLICY_ERROR_CODES = {
  invalidPolicy: "invalid_policy",
  approvalNotFound: "approval_not_found",
  approvalNotPending: "approval_not_pending",
  approvalIdTaken: "approval_id_taken",
  sandboxRequired: "sandbox_required",
  /** The sandbox cannot be set up here (bubblewrap missing or unable to create its namespaces). */
  sandboxUnavailable: "sandbox_unavailable",
  /** A protected name is reached through a symbolic link a sandboxed process could replace (it sits in a write grant). */
  replaceableProtectedLink: "replaceable_protected_link",
  unrepresentableInput: "unrepresentable_input",
  /** A sandbox was asked to launch a command that is no executable file (not found on its `PATH`, or not executable). */
  commandNotFound: "command_not_found",
} as const;

/** A code of {@link POLICY_ERROR_CODES}. */
export type PolicyErrorCode = (typeof POLICY_ERROR_CODES)[keyof typeof POLICY_ERROR_CODES];

const MARKER = Symbol.for("@agent/policy.PolicyError");

/** Thrown for a bad policy, an impossible approval state change, or a refused sandbox; decisions are values. */
export class PolicyError extends CodedError<PolicyErrorCode> {
  override readonly name = "PolicyError";

  constructor(code: PolicyErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
  }

  /** Whether `value` is a PolicyError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is PolicyError {
    return hasErrorBrand(value, MARKER);
  }
}
