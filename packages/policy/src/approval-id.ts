/**
 * A new approval request id, `apr_<uuid>`: what every store mints when it saves a request that brings
 * no id. The shape is public (the CLI prints and accepts these ids), so stores share this one maker.
 */
export function createApprovalId(): string {
  return `apr_${globalThis.crypto.randomUUID()}`;
}
