// The texts signed here are a wire format: every approver and every agent of a team must build them
// byte for byte alike, and a change voids every signature given before. Change them only with a new
// purpose tag (the `purpose` field), never in place.
import { canonicalJson } from "@agent/tools";

/** Signs texts with one private key (an approver's, or an audit writer's); see `@agent/store-postgres/keys`. */
export interface RecordSigner {
  /** The name the verifiers know this key's public half by (e.g. `alice`). */
  readonly keyId: string;
  /** The signature of `message`, as text (base64). */
  sign(message: string): string;
}

/** Checks signatures against the public keys a process trusts; unknown key ids never verify. */
export interface SignatureVerifier {
  /** Whether `signature` is `keyId`'s signature of `message`. */
  verify(keyId: string, message: string, signature: string): boolean;
}

/** What an approver's signature on a decision binds: the request, the action, the verdict and who gave it. */
export interface DecisionFields {
  id: string;
  runId: string;
  actionDigest: string;
  digestVersion: number;
  decision: "granted" | "denied";
  decidedAt: string;
  decidedBy: string | null;
  keyId: string;
}

/** The text an approver signs for one decision (canonical JSON with a purpose tag of its own). */
export function decisionMessage(fields: DecisionFields): string {
  return canonicalJson({ purpose: "agent-approval-decision/v1", ...fields, decidedBy: fields.decidedBy });
}

/** The text an audit writer signs for one row: its chain hash, which covers the row before it too. */
export function auditRowMessage(hash: string): string {
  return canonicalJson({ purpose: "agent-audit-row/v1", hash });
}
