import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link StorePostgresError}. */
export const STORE_POSTGRES_ERROR_CODES = {
  /** The URL is not a `postgres://` or `postgresql://` URL. */
  invalidUrl: "store_invalid_url",
  /** The server could not be reached, or the connection broke mid-operation. */
  unavailable: "store_unavailable",
  /** The database was migrated by a newer version of this package. */
  schemaNewer: "store_schema_newer",
  /** A stored row is not what this package wrote (edited by hand, or another program's table). */
  corruptRow: "store_corrupt_row",
  /** The database role lacks a privilege the operation needs (see the README's team setup). */
  permissionDenied: "store_permission_denied",
  /** A signing or verifying key is not an Ed25519 key in a form this package reads. */
  invalidKey: "store_invalid_key",
  /** A role or schema name is not a plain lowercase SQL name. */
  invalidName: "store_invalid_name",
} as const;

/** A code of {@link STORE_POSTGRES_ERROR_CODES}. */
export type StorePostgresErrorCode =
  (typeof STORE_POSTGRES_ERROR_CODES)[keyof typeof STORE_POSTGRES_ERROR_CODES];

const MARKER = Symbol.for("@agent/store-postgres.error");

/**
 * Thrown when the database cannot do what was asked. Messages never contain the connection URL or
 * its password. Recognize it with {@link StorePostgresError.isInstance}, which also works across two
 * installed copies of this package.
 */
export class StorePostgresError extends CodedError<StorePostgresErrorCode> {
  override readonly name = "StorePostgresError";

  constructor(code: StorePostgresErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
  }

  /** Whether `value` is a {@link StorePostgresError} of any installed copy of this package. */
  static isInstance(value: unknown): value is StorePostgresError {
    return hasErrorBrand(value, MARKER);
  }
}

// SQLSTATE classes of a connection or server failure: 08 connection exception, 57P admin shutdown and
// crash, 53 insufficient resources. Node's own socket errors carry codes like ECONNREFUSED instead.
const UNAVAILABLE = /^(08|57P|53)/;

/**
 * Turns what `pg` threw into a {@link StorePostgresError} when it is a connection failure; anything
 * else (a bug, a constraint this package did not expect) is rethrown as it is.
 */
export function translateDatabaseError(error: unknown, doing: string): never {
  if (StorePostgresError.isInstance(error)) throw error;
  const code = (error as { code?: unknown }).code;
  const isConnection =
    (typeof code === "string" && (UNAVAILABLE.test(code) || code.startsWith("E"))) ||
    (error instanceof Error &&
      /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
        error.message,
      ));
  if (code === "42501") {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.permissionDenied,
      `the PostgreSQL state store could not ${doing}: this database role lacks the privilege (${error instanceof Error ? error.message : "42501"}); an agent role cannot decide approvals or change the schema, so run this as the role meant for it (see "A team setup" in @agent/store-postgres's README)`,
      { cause: error },
    );
  }
  if (isConnection) {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.unavailable,
      `the PostgreSQL state store could not ${doing}: the database is unreachable or the connection broke (${typeof code === "string" ? code : "no code"}); retry the command once it is back`,
      { cause: error },
    );
  }
  throw error;
}
