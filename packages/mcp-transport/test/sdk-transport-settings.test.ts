/** The adapter's options with their defaults filled in and their limits checked. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../src/errors.js";
import { resolveSdkTransportSettings } from "../src/sdk/sdk-transport-options.js";

function countingTransport(): { transport: Transport; closes: () => number } {
  let closes = 0;
  const transport: Transport = {
    start: async () => {},
    send: async () => {},
    close: async () => {
      closes += 1;
    },
  };
  return { transport, closes: () => closes };
}

describe("resolveSdkTransportSettings", () => {
  it("defaults to a 5 s close bound, no redaction, no close reason, no retry, and the transport's own close", async () => {
    const { transport, closes } = countingTransport();
    const settings = resolveSdkTransportSettings(transport, {});
    expect(settings.closeTimeoutMs).toBe(5000);
    expect(settings.redact("token abc")).toBe("token abc");
    expect(settings.describeClose()).toBeUndefined();
    expect(settings.retryAfter).toBeUndefined();
    await settings.closeTransport();
    expect(closes()).toBe(1);
  });

  it("uses what the caller gave instead of the defaults", async () => {
    const { transport, closes } = countingTransport();
    let customCloses = 0;
    const settings = resolveSdkTransportSettings(transport, {
      closeTimeoutMs: 0,
      redact: () => "[redacted]",
      describeClose: () => ({ kind: "exited", message: "exit code 1" }),
      closeTransport: async () => {
        customCloses += 1;
      },
    });
    await settings.closeTransport();
    expect([settings.closeTimeoutMs, settings.redact("token abc"), customCloses, closes()]).toEqual([
      0,
      "[redacted]",
      1,
      0,
    ]);
    expect(settings.describeClose()).toEqual({ kind: "exited", message: "exit code 1" });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, "5000"])(
    "refuses closeTimeoutMs %s as misuse",
    (value) => {
      const { transport } = countingTransport();
      expect(() => resolveSdkTransportSettings(transport, { closeTimeoutMs: value as number })).toThrow(
        McpTransportError,
      );
    },
  );
});
