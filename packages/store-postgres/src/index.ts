export {
  STORE_POSTGRES_ERROR_CODES,
  StorePostgresError,
  type StorePostgresErrorCode,
  translateDatabaseError,
} from "./errors.js";
export { migrate, POSTGRES_MIGRATIONS, type PostgresMigration, STORE_COMPONENT } from "./migrations.js";
export {
  assertPostgresUrl,
  type OpenPostgresStateOptions,
  openPostgresState,
  type PostgresState,
} from "./open-postgres-state.js";
export { PostgresApprovalStore, type PostgresApprovalStoreOptions } from "./postgres-approval-store.js";
export {
  AUDIT_CHAIN_ORIGIN,
  type AuditChainVerdict,
  type AuditReadFilter,
  chainHash,
  createPostgresAuditSink,
  type PostgresAuditSink,
  type PostgresAuditSinkOptions,
  readAuditRecords,
  verifyAuditChain,
} from "./postgres-audit-trail.js";
export { PostgresRunStore } from "./postgres-run-store.js";
export { PostgresTaintedFileStore } from "./postgres-tainted-files.js";
