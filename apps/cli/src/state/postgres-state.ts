import {
  type AuditChainHead,
  createPostgresAuditSink,
  openPostgresState,
  type PostgresAuditSink,
} from "@agent/store-postgres";
import { createEd25519Verifier } from "@agent/store-postgres/keys";
import type { Pool } from "pg";
import type { StateTeamConfig } from "../config/index.js";
import { CLI_POSTGRES_MIGRATIONS } from "./postgres-cli-schema.js";
import type { RunOwner } from "./run-owner.js";
import { loadSigningKeyFile } from "./signing-key-file.js";
import type { StateStore } from "./state-store.js";
import { retryingRunStore } from "./while-unavailable.js";

/** The shared state of a team: the stores and the audit trail's table. */
export interface PostgresStateBackend {
  store: StateStore;
  audit: PostgresAuditSink;
  pool: Pool;
  /** Why an approval from this machine would not be run by the agents (it cannot sign one they trust), if so. */
  grantRefusal: string | undefined;
}

/**
 * Opens the PostgreSQL state at `url` (migrating it once, under an advisory lock) for this process:
 * requests record `owner.host`, decisions `decidedBy`.
 */
export async function openPostgresStateBackend(options: {
  url: string;
  owner: RunOwner;
  decidedBy: string;
  team: StateTeamConfig;
  onAuditError: (error: unknown) => void;
  /** Told the newest audit row this process committed (kept as a checkpoint outside the database). */
  onAuditCommitted?: (head: AuditChainHead) => void;
}): Promise<PostgresStateBackend> {
  const { approvers, signingKey } = options.team;
  // Keys first: a key that cannot be used fails the command before anything is written.
  const signer = signingKey && loadSigningKeyFile("state.signingKey", signingKey);
  const auditSigner = options.team.auditKey && loadSigningKeyFile("state.auditKey", options.team.auditKey);
  const state = await openPostgresState({
    url: options.url,
    host: options.owner.host,
    decidedBy: options.decidedBy,
    extraMigrations: CLI_POSTGRES_MIGRATIONS,
    ...(signer && { signer }),
    ...(approvers && { trustedApprovers: createEd25519Verifier(approvers) }),
  });
  try {
    const audit = createPostgresAuditSink(state.pool, {
      host: options.owner.host,
      onError: options.onAuditError,
      ...(auditSigner && { signer: auditSigner }),
      ...(options.onAuditCommitted && { onCommitted: options.onAuditCommitted }),
    });
    const store: StateStore = {
      kind: "postgres",
      approvals: state.approvals,
      // A database restart while a call of `agent run` runs must not cost the call's outcome.
      runs: retryingRunStore(state.runs),
      taintedFiles: state.taintedFiles,
      taintWindows: state.taintedFiles,
      async close() {
        await audit.close().catch(options.onAuditError);
        await state.close();
      },
    };
    return { store, audit, pool: state.pool, grantRefusal: grantRefusal(options.team) };
  } catch (error) {
    await state.close();
    throw error;
  }
}

// With `state.approvers`, the agents void any grant not signed by one of those keys: refuse to give one.
function grantRefusal({ approvers, signingKey }: StateTeamConfig): string | undefined {
  if (!approvers) return undefined;
  if (!signingKey) {
    return "this machine has no state.signingKey, and the agents run only grants signed by a key in state.approvers; set state.signingKey to your approver key (see the README's team setup)";
  }
  if (!Object.hasOwn(approvers, signingKey.id)) {
    return `state.signingKey.id "${signingKey.id}" is not in state.approvers, so the agents would void its grants; add its public key there (openssl pkey -in KEY.pem -pubout)`;
  }
  return undefined;
}
