import { CodedError, hasErrorBrand } from "@agent/base";
import { STORE_SQLITE_ERROR_CODES, StoreSqliteError, type StoreSqliteErrorCode } from "@agent/store-sqlite";
/** Codes of {@link StateError}: why durable state could not be opened or changed. */
export const STATE_ERROR_CODES = {
  corrupt: "state_corrupt",
  tooNew: "state_too_new",
  unavailable: "state_unavailable",
  notRegular: "state_not_regular",
  /** The approver's signing key (`state.signingKey`) cannot be used. */
  signingKey: "state_signing_key",
  /** An approval this machine would give unsigned, or signed by a key the agents do not trust. */
  unsignedGrant: "state_unsigned_grant",
} as const;

/** A code of {@link STATE_ERROR_CODES}. */
export type StateErrorCode = (typeof STATE_ERROR_CODES)[keyof typeof STATE_ERROR_CODES];

const MARKER = Symbol.for("@agent/cli.StateError");

/** Thrown when the state database cannot be used as it is, or a run is misaddressed; never resets anything. */
export class StateError extends CodedError<StateErrorCode> {
  override readonly name = "StateError";
  /** The file concerned, when there is one. */
  readonly file: string | undefined;

  constructor(code: StateErrorCode, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(MARKER, code, message, options);
    this.file = options.file;
  }

  /** Whether `value` is a StateError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is StateError {
    return hasErrorBrand(value, MARKER);
  }
}

// The CLI's codes for what `@agent/store-sqlite` refuses: they are part of its output, older than the package.
const FROM_STORE: Readonly<Record<StoreSqliteErrorCode, StateErrorCode>> = Object.freeze({
  [STORE_SQLITE_ERROR_CODES.corrupt]: STATE_ERROR_CODES.corrupt,
  [STORE_SQLITE_ERROR_CODES.schemaNewer]: STATE_ERROR_CODES.tooNew,
  [STORE_SQLITE_ERROR_CODES.unavailable]: STATE_ERROR_CODES.unavailable,
  [STORE_SQLITE_ERROR_CODES.notRegular]: STATE_ERROR_CODES.notRegular,
});

/** Runs `step`, rethrowing a `StoreSqliteError` as the {@link StateError} of the same meaning (message and file kept). */
export function asStateErrors<T>(step: () => T): T {
  try {
    return step();
  } catch (cause) {
    if (!StoreSqliteError.isInstance(cause)) throw cause;
    throw new StateError(FROM_STORE[cause.code], cause.message, {
      ...(cause.file === undefined ? {} : { file: cause.file }),
      cause,
    });
  }
}
