import { describe, expect, it } from "vitest";
import {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  protocolFeatures,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../src/protocol-version.js";

describe("protocol versions", () => {
  it("offers the newest supported version, and lists the versions newest first", () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SUPPORTED_PROTOCOL_VERSIONS[0]);
    expect([...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it("recognises exactly the supported versions in a server's answer", () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) expect(isSupportedProtocolVersion(version)).toBe(true);
    for (const answer of ["2024-10-07", "2025-11-25 ", "latest", "", 20251125, null, undefined, {}]) {
      expect(isSupportedProtocolVersion(answer)).toBe(false);
    }
  });

  it("grants each feature from the version that defines it on", () => {
    expect(protocolFeatures("2024-11-05")).toEqual({
      toolAnnotations: false,
      structuredContent: false,
      toolTitle: false,
      elicitation: false,
    });
    expect(protocolFeatures("2025-03-26")).toEqual({
      toolAnnotations: true,
      structuredContent: false,
      toolTitle: false,
      elicitation: false,
    });
    const all = { toolAnnotations: true, structuredContent: true, toolTitle: true, elicitation: true };
    expect(protocolFeatures("2025-06-18")).toEqual(all);
    expect(protocolFeatures(LATEST_PROTOCOL_VERSION)).toEqual(all);
  });
});
