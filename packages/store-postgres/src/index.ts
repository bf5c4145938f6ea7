export {
  STORE_POSTGRES_ERROR_CODES,
  StorePostgresError,
  type StorePostgresErrorCode,
} from "./errors.js";
export type { PostgresMigration } from "./migrations.js";
export {
  type OpenPostgresStateOptions,
  openPostgresState,
  type PostgresState,
} from "./open-postgres-state.js";
export {
  PostgresApprovalStore,
  type PostgresApprovalStoreOptions,
  UNSIGNED_GRANT_REASON,
} from "./postgres-approval-store.js";
export {
  type AuditChainExpectations,
  type AuditChainHead,
  type AuditChainVerdict,
  type AuditReadFilter,
  createPostgresAuditSink,
  type PostgresAuditSink,
  type PostgresAuditSinkOptions,
  readAuditRecords,
  verifyAuditChain,
} from "./postgres-audit-trail.js";
export { insertRun, PostgresRunStore } from "./postgres-run-store.js";
export { PostgresTaintedFileStore } from "./postgres-tainted-files.js";
export {
  type DecisionFields,
  decisionMessage,
  type RecordSigner,
  type SignatureVerifier,
} from "./signatures.js";
export { type PostgresTeamRoles, postgresTeamGrants } from "./team-grants.js";
