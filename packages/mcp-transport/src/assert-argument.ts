import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "./errors.js";
import { isAbortSignalLike, type McpRequestContext } from "./transport.js";

/** Throws {@link McpTransportError} unless `value` is a finite number >= 0 (a duration or a size). */
export function assertNonNegative(name: string, value: unknown, unit: "milliseconds" | "bytes"): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new McpTransportError(
      MCP_TRANSPORT_ERROR_CODES.invalidArgument,
      `${name} must be a finite number of ${unit} >= 0, got ${describeKind(value)}.`,
    );
  }
}

/** Names a value's kind for a misuse message, without echoing the value (it may be a credential). */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return typeof value;
}

/** Throws {@link McpTransportError} unless `method` is a non-empty string. */
export function assertMethod(method: unknown): void {
  if (typeof method !== "string" || method.length === 0) {
    throw new McpTransportError(
      MCP_TRANSPORT_ERROR_CODES.invalidArgument,
      `method must be a non-empty string, got ${describeKind(method)}.`,
    );
  }
}

/** Throws {@link McpTransportError} unless `params` is a plain object or undefined (MCP params are named). */
export function assertParams(params: unknown): void {
  if (params === undefined) return;
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new McpTransportError(
      MCP_TRANSPORT_ERROR_CODES.invalidArgument,
      `params must be a plain object or undefined (MCP uses named parameters), got ${describeKind(params)}.`,
    );
  }
}

/** Throws {@link McpTransportError} unless `context` has a signal and, if any, a valid `timeoutMs`. */
export function assertContext(context: McpRequestContext): void {
  if (!isAbortSignalLike(context?.signal)) {
    throw new McpTransportError(
      MCP_TRANSPORT_ERROR_CODES.invalidArgument,
      "context must be an AbortSignal or { signal: AbortSignal, timeoutMs?, onProgress? } (signal: anything with aborted and abort listeners).",
    );
  }
  if (context.timeoutMs !== undefined) assertNonNegative("timeoutMs", context.timeoutMs, "milliseconds");
}
