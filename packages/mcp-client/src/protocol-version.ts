/** Protocol versions this client speaks, newest first; the first is the one it offers. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** A version of {@link SUPPORTED_PROTOCOL_VERSIONS}. */
export type SupportedProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** The version the client offers in `initialize`. */
export const LATEST_PROTOCOL_VERSION: SupportedProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/** Whether a server's answer is a version this client supports. */
export function isSupportedProtocolVersion(value: unknown): value is SupportedProtocolVersion {
  return SUPPORTED_PROTOCOL_VERSIONS.some((version) => version === value);
}
