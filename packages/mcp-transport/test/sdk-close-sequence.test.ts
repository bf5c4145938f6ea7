/** The adapter's close(): idempotent, the connection ends at once, bounded in time, failures reported not thrown. */
import { describe, expect, it } from "vitest";
import { MCP_TRANSPORT_ERROR_CODES, type McpTransportError } from "../src/errors.js";
import { type CloseSequencePort, createCloseSequence } from "../src/sdk/close-sequence.js";
import { ConnectionLifetime } from "../src/sdk/connection-lifetime.js";
import { PendingRequests } from "../src/sdk/pending-requests.js";

function closeSequence(overrides: Partial<CloseSequencePort> = {}) {
  const reported: McpTransportError[] = [];
  const redact = (text: string) => text.replaceAll("s3cret", "[redacted]");
  const lifetime = new ConnectionLifetime(new PendingRequests(), redact);
  let transportCloses = 0;
  const close = createCloseSequence({
    lifetime,
    ready: Promise.resolve(true),
    closeTransport: async () => {
      transportCloses += 1;
    },
    closeTimeoutMs: 1000,
    report: (error) => reported.push(error),
    redact,
    ...overrides,
  });
  return { close, lifetime, reported, transportCloses: () => transportCloses };
}

describe("createCloseSequence", () => {
  it("ends the connection as closed by the client at once, and closes the transport once however often it is called", async () => {
    const { close, lifetime, reported, transportCloses } = closeSequence();
    const first = close();
    expect(lifetime.reason).toEqual({ kind: "client", message: "closed by the client" });
    expect(close()).toBe(first);
    await first;
    expect(transportCloses()).toBe(1);
    expect(reported).toEqual([]);
  });

  it("keeps the reason the connection already ended with", async () => {
    const { close, lifetime } = closeSequence();
    lifetime.end({ kind: "exited", message: "exit code 1" });
    await close();
    expect(lifetime.reason).toEqual({ kind: "exited", message: "exit code 1" });
  });

  it("closes the transport only once it has finished starting", async () => {
    let started: (up: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      started = resolve;
    });
    const { close, transportCloses } = closeSequence({ ready });
    const closing = close();
    await Promise.resolve();
    expect(transportCloses()).toBe(0);
    started(true);
    await closing;
    expect(transportCloses()).toBe(1);
  });

  it("reports close_failed, and resolves, when the transport does not close within the bound", async () => {
    const { close, reported } = closeSequence({
      closeTimeoutMs: 0,
      closeTransport: () => new Promise(() => {}),
    });
    await close();
    expect(reported.map((error) => [error.code, error.message])).toEqual([
      [MCP_TRANSPORT_ERROR_CODES.closeFailed, "the transport did not close within 0 ms"],
    ]);
  });

  it("reports a failing close as close_failed, redacted, and resolves", async () => {
    const { close, reported } = closeSequence({
      closeTransport: () => Promise.reject(new Error("kill failed for s3cret")),
    });
    await close();
    expect(reported.map((error) => [error.code, error.message])).toEqual([
      [
        MCP_TRANSPORT_ERROR_CODES.closeFailed,
        expect.stringMatching(/^closing the transport failed: .*kill failed for \[redacted\]/),
      ],
    ]);
  });
});
