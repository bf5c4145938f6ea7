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
export class ToolsError extends Error {
  override readonly name = "ToolsError";
  readonly code: ToolsErrorCode;
  readonly [MARKER] = true;

  constructor(code: ToolsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Whether `value` is a ToolsError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is ToolsError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
