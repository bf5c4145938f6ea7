// DO NOT CHANGE CASUALLY. Every stored approval (pending or granted, in every user's state database)
// is matched by the digest computed here. Any change to what goes into it, its order or its encoding
// (including `canonicalJson` in @agent/tools) would silently stop old approvals from matching. So
// such a change bumps ACTION_DIGEST_VERSION, with a changeset: every approval records the version it
// was digested under, and the gate voids those of an older version with the reason
// `digest_version_changed` instead of leaving them to never match. The fixed digest in
// test/action-digest.test.ts fails until the version is bumped.
import { canonicalJson, sha256Hex } from "@agent/tools";
import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";
import type { NetworkPolicy } from "./policy.js";

/**
 * The version of how actions are digested: the fields {@link computeActionDigest} binds, their shape
 * and the canonical JSON it hashes. Stored with every approval request (`digestVersion`).
 */
export const ACTION_DIGEST_VERSION = 1;

/** Everything an approval is bound to; change any of it and the approval no longer applies. */
export interface ActionDigestInput {
  toolName: string;
  /** The tool definition's fingerprint (`RegisteredTool.fingerprint`). */
  toolFingerprint: string;
  /** The validated input, exactly what will execute. */
  input: unknown;
  cwd: string;
  network: NetworkPolicy;
  /**
   * The keys (`flowSourceKey`) of the untrusted sources a tainted run took in. Left out of the digest
   * when absent or empty, so a clean call digests as it always has and old approvals still match.
   */
  taint?: readonly string[];
}

/**
 * The lowercase hex sha256 of the RFC 8785 canonical JSON of `{ toolName, toolFingerprint, input, cwd,
 * network }`, plus `taint` (sorted, without repeats) for a call of a tainted run: key order does not
 * matter, every value does. Throws `PolicyError`
 * (`unrepresentable_input`) for input JSON cannot represent faithfully (`canonicalJson` refuses it),
 * since no approval could be bound to it.
 */
export function computeActionDigest(action: ActionDigestInput): string {
  const { toolName, toolFingerprint, input, cwd, network } = action;
  try {
    // Picking the fields keeps anything else a caller's object carries out of the digest.
    const bound = { toolName, toolFingerprint, input: input ?? null, cwd, network };
    if (action.taint && action.taint.length > 0) {
      // A set: the order the sources entered in does not change what is approved.
      return sha256Hex(canonicalJson({ ...bound, taint: [...new Set(action.taint)].sort() }));
    }
    return sha256Hex(canonicalJson(bound));
  } catch (cause) {
    throw new PolicyError(
      POLICY_ERROR_CODES.unrepresentableInput,
      `The input of tool "${toolName}" cannot be represented as JSON, so no approval can be bound to it; make the tool's schema produce plain JSON values.`,
      { cause },
    );
  }
}
