import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link ModelClientError}: misuse of this package's API, never the outcome of a request. */
export const MODEL_CLIENT_ERROR_CODES = {
  /** A caller passed an option or argument the adapter cannot use. */
  invalidArgument: "invalid_argument",
} as const;

/** A code of {@link MODEL_CLIENT_ERROR_CODES}. */
export type ModelClientErrorCode = (typeof MODEL_CLIENT_ERROR_CODES)[keyof typeof MODEL_CLIENT_ERROR_CODES];

const MARKER = Symbol.for("@agent/models.ModelClientError");

/** Thrown for programmer misuse (bad options); failed requests are {@link ModelFailure} values instead. */
export class ModelClientError extends CodedError<ModelClientErrorCode> {
  override readonly name = "ModelClientError";

  constructor(code: ModelClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
  }

  /** Recognizes the error across two installed copies of this package, where `instanceof` fails. */
  static isInstance(value: unknown): value is ModelClientError {
    return hasErrorBrand(value, MARKER);
  }
}
