import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link StateError}: why durable state could not be opened or changed. */
export const STATE_ERROR_CODES = {
  corrupt: "state_corrupt",
  tooNew: "state_too_new",
  unavailable: "state_unavailable",
  notRegular: "state_not_regular",
  runNotFound: "run_not_found",
  runExists: "run_exists",
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
