import { CodedError, hasErrorBrand } from "@agent/base";

/** Codes of {@link StoreSqliteError}: why a state database could not be opened as it is. */
export const STORE_SQLITE_ERROR_CODES = {
  /** The file is not a SQLite database, or it is damaged. */
  corrupt: "store_corrupt",
  /** The database was migrated by a newer version of this package. */
  schemaNewer: "store_schema_newer",
  /** The file cannot be created, read or locked (permissions, a lock held too long). */
  unavailable: "store_unavailable",
  /** A symbolic link, FIFO, device or directory stands where a plain file must be. */
  notRegular: "store_not_regular",
} as const;

/** A code of {@link STORE_SQLITE_ERROR_CODES}. */
export type StoreSqliteErrorCode = (typeof STORE_SQLITE_ERROR_CODES)[keyof typeof STORE_SQLITE_ERROR_CODES];

const MARKER = Symbol.for("@agent/store-sqlite.error");

/**
 * Thrown when a state database cannot be used as it is; the file is then left exactly as it was.
 * Recognize it with {@link StoreSqliteError.isInstance}, which also works across two installed copies.
 */
export class StoreSqliteError extends CodedError<StoreSqliteErrorCode> {
  override readonly name = "StoreSqliteError";
  /** The file concerned. */
  readonly file: string | undefined;

  constructor(code: StoreSqliteErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(MARKER, code, message, options);
    this.file = options.file;
  }

  /** Whether `value` is a {@link StoreSqliteError} of any installed copy of this package. */
  static isInstance(value: unknown): value is StoreSqliteError {
    return hasErrorBrand(value, MARKER);
  }
}
