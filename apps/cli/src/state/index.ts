export { AUDIT_CHECKPOINT_FILE, readAuditCheckpoint, writeAuditCheckpoint } from "./audit-checkpoint.js";
export {
  type AuditEntry,
  type AuditRecord,
  followAuditLog,
  readAuditLog,
} from "./audit-log-reader.js";
export { type CallRunView, callRunView, runOwnerOf } from "./call-run-view.js";
export {
  createFileCredentialStore,
  OAUTH_TOKENS_FILE,
  oauthServerTokensPath,
  oauthTokensPath,
} from "./oauth-token-store.js";
export { readPostgresAudit } from "./postgres-audit-reader.js";
export { openPostgresStateBackend, type PostgresStateBackend } from "./postgres-state.js";
export { currentRunOwner, isRunOwnerGone, type RunOwner } from "./run-owner.js";
export { SqliteStateStore } from "./sqlite-state-store.js";
export { ensureStateDirectory } from "./state-directory.js";
export { STATE_ERROR_CODES, StateError } from "./state-error.js";
export { assertRegularStateFileIfPresent, notRegular, openRegularStateFile } from "./state-files.js";
export { auditLogPath, resolveStateDir, stateDatabasePath } from "./state-paths.js";
export { type StateStore, sqliteStateStore } from "./state-store.js";
