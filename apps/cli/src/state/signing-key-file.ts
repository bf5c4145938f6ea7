import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import type { RecordSigner } from "@agent/store-postgres";
import { createEd25519Signer } from "@agent/store-postgres/keys";
import type { StateTeamConfig } from "../config/index.js";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";

/**
 * The signer of a key the configuration names (`state.signingKey`, an approver's; `state.auditKey`,
 * this machine's as an audit writer): an Ed25519 private key read from its own file (PEM, mode 0600
 * or stricter, never through a symlink). Throws `state_signing_key` saying how to fix it.
 */
export function loadSigningKeyFile(
  field: "state.signingKey" | "state.auditKey",
  key: NonNullable<StateTeamConfig["signingKey"]>,
): RecordSigner {
  const { id, file } = key;
  const unusable = (problem: string, cause?: unknown) =>
    new StateError(STATE_ERROR_CODES.signingKey, `${field}.file ${file} ${problem}.`, { file, cause });
  let pem: string;
  try {
    const descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const stat = fstatSync(descriptor);
      if (!stat.isFile()) throw unusable("is not a regular file");
      if ((stat.mode & 0o077) !== 0) throw unusable(`is readable by others; run: chmod 600 ${file}`);
      pem = readFileSync(descriptor, "utf8");
    } finally {
      closeSync(descriptor);
    }
  } catch (cause) {
    if (StateError.isInstance(cause)) throw cause;
    throw unusable(
      `cannot be read (${(cause as NodeJS.ErrnoException).code ?? "error"}); make one with: openssl genpkey -algorithm ed25519 -out ${file} && chmod 600 ${file}`,
      cause,
    );
  }
  try {
    return createEd25519Signer(id, pem);
  } catch (cause) {
    throw unusable(`is not an Ed25519 private key in PEM (${(cause as Error).message})`, cause);
  }
}
