export { STORE_SQLITE_ERROR_CODES, StoreSqliteError, type StoreSqliteErrorCode } from "./errors.js";
export { callRunOfLegacyRow, type LegacyCallRunRow } from "./legacy-call-runs.js";
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, type SqliteMigration } from "./migrations.js";
export { SqliteApprovalStore, type SqliteApprovalStoreOptions } from "./sqlite-approval-store.js";
export { SqliteRunStore } from "./sqlite-run-store.js";
export { createSqliteState, type SqliteState, type SqliteStateOptions } from "./sqlite-state.js";
export { SqliteTaintedFileStore } from "./sqlite-tainted-files.js";
