import { CodedError, hasErrorBrand } from "@agent/base";
/** Codes of {@link McpTransportError}: misuse of the transport API or out-of-band problems, never a request outcome. */
export const MCP_TRANSPORT_ERROR_CODES = {
  /** A caller passed an argument the transport cannot use (thrown). */
  invalidArgument: "invalid_argument",
  /** The transport could not release everything it holds within its time bound (reported, not thrown). */
  closeFailed: "close_failed",
  /** A non-fatal problem on the wire, e.g. a response to an unknown request id (reported, not thrown). */
  protocolNoise: "protocol_noise",
} as const;

/** A code of {@link MCP_TRANSPORT_ERROR_CODES}. */
export type McpTransportErrorCode =
  (typeof MCP_TRANSPORT_ERROR_CODES)[keyof typeof MCP_TRANSPORT_ERROR_CODES];

const MARKER = Symbol.for("@agent/mcp-transport.McpTransportError");

/** Thrown for misuse of a transport and passed to `onError` listeners for out-of-band problems; request outcomes are values. */
export class McpTransportError extends CodedError<McpTransportErrorCode> {
  override readonly name = "McpTransportError";

  constructor(code: McpTransportErrorCode, message: string, options?: { cause?: unknown }) {
    super(MARKER, code, message, options);
  }

  /** Whether `value` is a McpTransportError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is McpTransportError {
    return hasErrorBrand(value, MARKER);
  }
}
