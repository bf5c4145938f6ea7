import type { McpTransport } from "@agent/mcp-transport";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpServerConnectionOptions, McpServerState } from "../src/connection-options.js";
import { ConnectionRecovery, type RecoveryPort } from "../src/connection-recovery.js";

const HELD = {} as McpTransport;
const RETRY_ONCE = { maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 };

/** A connection as the recovery sees it, recording what it was asked; `establish` does as `opens` says. */
function recordingConnection(options: Partial<McpServerConnectionOptions>, opens: () => Promise<void>) {
  const events = createMemoryEventSink();
  const asked: string[] = [];
  const connection = {
    state: "ready" as McpServerState,
    error: undefined as { code: string; message: string } | undefined,
    takenOver: false,
    /** Runs when the transport is let go, before release() resolves (a reconnect() or close() begun there). */
    onRelease: () => {},
  };
  const port: RecoveryPort = {
    server: "docs",
    events,
    lifetime: new AbortController().signal,
    state: () => connection.state,
    enter: (state, error) => {
      connection.state = state;
      if (error) connection.error = error;
    },
    takenOver: () => connection.takenOver,
    holds: (transport) => transport === HELD,
    establish: () => {
      asked.push("establish");
      return opens();
    },
    fail: async (error) => {
      asked.push(`fail: ${(error as Error).message}`);
      connection.state = "failed";
    },
    release: async () => {
      asked.push("release");
      connection.onRelease();
    },
  };
  const recovery = new ConnectionRecovery(
    { name: "docs", connect: () => HELD, ...options } as McpServerConnectionOptions,
    port,
  );
  return { recovery, connection, asked, events };
}

const refused = () => Promise.reject(new Error("refused"));

describe("ConnectionRecovery", () => {
  it("records a held, ready transport that ended by itself as disconnected and starts the reconnector", async () => {
    const { recovery, connection, asked, events } = recordingConnection(
      { reconnect: RETRY_ONCE },
      async () => {
        connection.state = "ready";
      },
    );
    recovery.transportClosed(HELD, { kind: "exited", message: "the server exited" });
    expect(connection.state).toBe("disconnected");
    expect(connection.error).toEqual({ code: "mcp_connection_closed", message: "the server exited" });
    expect(events.ofType("mcp_server_exited")).toMatchObject([{ server: "docs", reason: "exited" }]);
    await recovery.reconnector?.running;
    expect(asked).toEqual(["establish"]);
    expect(connection.state).toBe("ready");
  });

  it("ignores the end of a transport it does not hold, or of one that was not ready", () => {
    const { recovery, connection, asked, events } = recordingConnection({ reconnect: RETRY_ONCE }, refused);
    recovery.transportClosed({} as McpTransport, { kind: "exited", message: "another" });
    connection.state = "connecting";
    recovery.transportClosed(HELD, { kind: "exited", message: "mid-handshake" });
    expect(connection.state).toBe("connecting");
    expect(events.ofType("mcp_server_exited")).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("fails the connection when a wake fails and no reconnect policy is set", async () => {
    const { recovery, connection, asked } = recordingConnection({ idleTimeoutMs: 60_000 }, refused);
    connection.state = "dormant";
    expect(await recovery.dormancy?.wake(new AbortController().signal)).toBe(false);
    expect(asked).toEqual(["establish", "fail: refused"]);
    expect(connection.state).toBe("failed");
  });

  it("hands a failed wake to the reconnector when a reconnect policy is set", async () => {
    const { recovery, connection, asked } = recordingConnection(
      { idleTimeoutMs: 60_000, reconnect: RETRY_ONCE },
      refused,
    );
    connection.state = "dormant";
    await recovery.dormancy?.wake(new AbortController().signal);
    await recovery.reconnector?.running;
    // The wake's transport let go, then the reconnector's one attempt, which gave up.
    expect(asked).toEqual(["establish", "release", "establish", "release", expect.stringMatching(/^fail: /)]);
  });

  it("leaves a failed wake to a reconnect() or close() that began while its transport was let go", async () => {
    const { recovery, connection, asked } = recordingConnection(
      { idleTimeoutMs: 60_000, reconnect: RETRY_ONCE },
      refused,
    );
    connection.state = "dormant";
    connection.onRelease = () => {
      connection.takenOver = true;
    };
    await recovery.dormancy?.wake(new AbortController().signal);
    expect(recovery.reconnector?.running).toBeUndefined();
    expect(asked).toEqual(["establish", "release"]);
  });
});
