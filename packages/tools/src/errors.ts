import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link ToolsError}: misuse of the tools API, never an expected call outcome. */
export const TOOLS_ERROR_CODES = {
  invalidToolDefinition: "invalid_tool_definition",
  duplicateTool: "duplicate_tool",
  groupViolation: "group_violation",
  auditFileUnusable: "audit_file_unusable",
} as const;

/** A code of {@link TOOLS_ERROR_CODES}. */
export type ToolsErrorCode = (typeof TOOLS_ERROR_CODES)[keyof typeof TOOLS_ERROR_CODES];

const MARKER = Symbol.for("@agent/tools.ToolsError");

/**
 * Thrown for misuse of the tools API (bad definitions, duplicate names) and for an audit file that
 * cannot be used safely; call outcomes are observations.
 */
export class ToolsError extends CodedError<ToolsErrorCode> {
  override readonly name = "ToolsError";

  constructor(code: ToolsErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
  }

  /** Whether `value` is a ToolsError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is ToolsError {
    return hasErrorBrand(value, MARKER);
  }
}
