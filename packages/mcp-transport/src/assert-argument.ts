import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "./errors.js";

/** Throws {@link McpTransportError} unless `value` is a finite number >= 0 (a duration or a size). */
export function assertNonNegative(name: string, value: unknown, unit: "milliseconds" | "bytes"): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new McpTransportError(
      MCP_TRANSPORT_ERROR_CODES.invalidArgument,
      `${name} must be a finite number of ${unit} >= 0, got ${describeValue(value)}.`,
    );
  }
}

/** Names a value's kind for a misuse message, without echoing the value (it may be a credential). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return typeof value;
}
