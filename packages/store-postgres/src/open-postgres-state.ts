import pg from "pg";
import { STORE_POSTGRES_ERROR_CODES, StorePostgresError, translateDatabaseError } from "./errors.js";
import { migrate, type PostgresMigration } from "./migrations.js";
import { PostgresApprovalStore, type PostgresApprovalStoreOptions } from "./postgres-approval-store.js";
import { PostgresRunStore } from "./postgres-run-store.js";
import { PostgresTaintedFileStore } from "./postgres-tainted-files.js";

/** Options of {@link openPostgresState}. */
export interface OpenPostgresStateOptions {
  /** `postgres://user:password@host:port/database`; never shown in errors. */
  url: string;
  /** The machine this process runs on, recorded with the requests it saves. */
  host?: string;
  /** Who takes the decisions made from this process (e.g. the OS user). */
  decidedBy?: string;
  /** Signs the decisions taken from this process: an approver's key. */
  signer?: PostgresApprovalStoreOptions["signer"];
  /** The approvers' public keys: given, only grants one of them signed are consumed. */
  trustedApprovers?: PostgresApprovalStoreOptions["trustedApprovers"];
  now?: () => Date;
  /** Connections this process keeps at most (default 4). */
  maxConnections?: number;
  /** An application's own tables, migrated with the stores' (e.g. the CLI's one-call runs). */
  extraMigrations?: { component: string; migrations: readonly PostgresMigration[] };
}

/** The stores of one PostgreSQL database, migrated and ready. */
export interface PostgresState {
  readonly approvals: PostgresApprovalStore;
  readonly runs: PostgresRunStore;
  /** The files tainted runs wrote (the flow guard). */
  readonly taintedFiles: PostgresTaintedFileStore;
  readonly pool: pg.Pool;
  /** Closes every connection; idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to the database, applies pending migrations (once, under an advisory lock, whatever
 * number of processes start together) and returns its stores. Throws {@link StorePostgresError}
 * (`store_invalid_url`, `store_unavailable`, `store_schema_newer`) without the URL in the message.
 */
export async function openPostgresState(options: OpenPostgresStateOptions): Promise<PostgresState> {
  assertPostgresUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: 10_000,
    // The harness is short-lived; idle connections need not linger past a command.
    idleTimeoutMillis: 5_000,
  });
  // An idle connection that breaks (server restart) must not crash the process: the next query fails
  // with a structured error instead.
  pool.on("error", () => {});
  // The same for a connection checked out between two queries: the server going away emits an
  // error on it, which without a listener would end the process. The next query rejects instead.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await pool.end();
  };
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
      if (options.extraMigrations) {
        await migrate(client, options.extraMigrations.migrations, options.extraMigrations.component);
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await close();
    translateDatabaseError(error, "open the state database");
  }
  const storeOptions = {
    ...(options.now && { now: options.now }),
    ...(options.host !== undefined && { host: options.host }),
    ...(options.decidedBy !== undefined && { decidedBy: options.decidedBy }),
    ...(options.signer && { signer: options.signer }),
    ...(options.trustedApprovers && { trustedApprovers: options.trustedApprovers }),
  };
  return {
    approvals: new PostgresApprovalStore(pool, storeOptions),
    runs: new PostgresRunStore(pool),
    taintedFiles: new PostgresTaintedFileStore(pool),
    pool,
    close,
  };
}

/** Throws `store_invalid_url` unless `url` is a `postgres:` or `postgresql:` URL; never echoes it. */
export function assertPostgresUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.invalidUrl,
      "state.url is not a URL; expected postgres://user:password@host:port/database",
    );
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.invalidUrl,
      `state.url must be a postgres:// URL, not a ${protocol} one`,
    );
  }
}
