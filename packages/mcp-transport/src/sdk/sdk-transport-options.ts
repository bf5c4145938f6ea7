import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { assertNonNegative } from "../assert-argument.js";
import type { McpCloseReason } from "../transport.js";

/** Options of {@link createSdkTransport}. */
export interface SdkTransportOptions {
  /** Explains an end of connection: the SDK's `onclose()` carries no reason. Unset or undefined means `lost`. */
  describeClose?: () => McpCloseReason | undefined;
  /** Closes the SDK transport on `close()`; defaults to its own `close()`. */
  closeTransport?: () => Promise<void>;
  /** Upper bound for `close()`, in milliseconds (default 5000). */
  closeTimeoutMs?: number;
  /** Removes credentials from every message before it leaves the adapter. */
  redact?: (text: string) => string;
  /**
   * Asked once per request when the SDK rejected it: `{ retry: true }` sends it again (e.g. after an
   * OAuth authorization completed), and the second outcome is final; `{ retry: false, error }` fails
   * it with `error` instead of the SDK's (e.g. why the authorization failed).
   */
  retryAfter?: (error: unknown) => Promise<RetryDecision>;
}

/** What {@link SdkTransportOptions.retryAfter} decided about a rejected request. */
export type RetryDecision = { retry: true } | { retry: false; error?: unknown };

/** {@link SdkTransportOptions} with every default filled in and every limit checked. */
export interface SdkTransportSettings {
  describeClose: () => McpCloseReason | undefined;
  closeTransport: () => Promise<void>;
  closeTimeoutMs: number;
  redact: (text: string) => string;
  retryAfter: ((error: unknown) => Promise<RetryDecision>) | undefined;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5000;

/** Fills in the defaults of `options` for `sdkTransport`; throws McpTransportError for a bad limit. */
export function resolveSdkTransportSettings(
  sdkTransport: Transport,
  options: SdkTransportOptions,
): SdkTransportSettings {
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  assertNonNegative("closeTimeoutMs", closeTimeoutMs, "milliseconds");
  const { describeClose, closeTransport } = options;
  return {
    describeClose: describeClose ?? (() => undefined),
    closeTransport: closeTransport ?? (() => sdkTransport.close()),
    closeTimeoutMs,
    redact: options.redact ?? ((text: string) => text),
    retryAfter: options.retryAfter,
  };
}
