/** Protocol versions this client speaks, newest first; the first is the one it offers. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** A version of {@link SUPPORTED_PROTOCOL_VERSIONS}. */
export type SupportedProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** The version the client offers in `initialize`. */
export const LATEST_PROTOCOL_VERSION: SupportedProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/** Whether a server's answer is a version this client supports. */
export function isSupportedProtocolVersion(value: unknown): value is SupportedProtocolVersion {
  return SUPPORTED_PROTOCOL_VERSIONS.some((version) => version === value);
}

/**
 * What a negotiated version lets a server send and ask. A server that sends a field its version
 * does not define (tool annotations before 2025-03-26, `outputSchema`, `structuredContent` and
 * `title` before 2025-06-18) has it ignored: the client holds it to the version it agreed on.
 */
export interface ProtocolFeatures {
  /** Tool `annotations` (2025-03-26). */
  toolAnnotations: boolean;
  /** Tool `outputSchema` and result `structuredContent` (2025-06-18). */
  structuredContent: boolean;
  /** Tool `title` (2025-06-18). */
  toolTitle: boolean;
  /** `elicitation/create` requests from the server (2025-06-18). */
  elicitation: boolean;
}

/** The features of a negotiated version (see {@link ProtocolFeatures}). */
export function protocolFeatures(version: SupportedProtocolVersion): ProtocolFeatures {
  // The versions are dates: later strings are later versions.
  return {
    toolAnnotations: version >= "2025-03-26",
    structuredContent: version >= "2025-06-18",
    toolTitle: version >= "2025-06-18",
    elicitation: version >= "2025-06-18",
  };
}
