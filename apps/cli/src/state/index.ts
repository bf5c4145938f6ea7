export {
  type AuditEntry,
  type AuditRecord,
  type FollowAuditLogOptions,
  followAuditLog,
  parseAuditLine,
  readAuditLog,
} from "./audit-log-reader.js";
export { CONSUME_GRANT_SQL, consumeGrant } from "./grant-consumption.js";
export { BUSY_TIMEOUT_MS, ensureStateDirectory, openStateDatabase } from "./open-state-database.js";
export { MIGRATIONS, type Migration, STATE_SCHEMA_VERSION } from "./schema-migrations.js";
export { SqliteApprovalStore } from "./sqlite-approval-store.js";
export {
  type NewRun,
  RUN_STATUSES,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  SqliteStateStore,
  type SqliteStateStoreOptions,
} from "./sqlite-state-store.js";
export { STATE_ERROR_CODES, StateError, type StateErrorCode } from "./state-error.js";
export {
  AUDIT_LOG_FILE,
  auditLogPath,
  DEFAULT_STATE_DIR,
  resolveStateDir,
  STATE_DB_FILE,
  STATE_DIR_ENV_VARIABLE,
  stateDatabasePath,
} from "./state-paths.js";
