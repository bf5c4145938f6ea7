import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link LoopError}: misuse, or a run that cannot be started or resumed; never a run's own outcome. */
export const LOOP_ERROR_CODES = {
  runNotFound: "run_not_found",
  runExists: "run_exists",
  /** The run stopped for good (completed, max turns) or is running elsewhere. */
  runNotResumable: "run_not_resumable",
  /** Another process updated the run first (it claimed it, or took it over). */
  /**
   * A new user message was given to a run that cannot take one now: it waits on approvals (decide
   * them and resume it), runs elsewhere, or has calls it must settle first.
   */
  runNotContinuable: "run_not_continuable",
  runConflict: "run_conflict",
  runFormatUnknown: "run_format_unknown",
  invalidOptions: "invalid_options",
  /**
   * The store failed while the run was driven (after what retries it makes): the run stopped here,
   * and calls that may have run without their outcome saved are marked `outcome_unknown`.
   */
  runNotSaved: "run_not_saved",
} as const;

/** A code of {@link LOOP_ERROR_CODES}. */
export type LoopErrorCode = (typeof LOOP_ERROR_CODES)[keyof typeof LOOP_ERROR_CODES];

const LOOP_ERROR = Symbol.for("@agent/loop.error");

/** Thrown when a run cannot be started or resumed; what happens inside a run is its stop reason instead. */
export class LoopError extends CodedError<LoopErrorCode> {
  override readonly name = "LoopError";

  constructor(code: LoopErrorCode, message: string, options?: { cause?: unknown }) {
    super(LOOP_ERROR, code, message, options);
  }

  /** Whether `value` is a LoopError, even one from another installed copy of this package. */
  static isInstance(value: unknown): value is LoopError {
    return hasErrorBrand(value, LOOP_ERROR);
  }
}
