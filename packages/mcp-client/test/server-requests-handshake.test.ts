/**
 * A server's requests on a transport whose handshake is under way are answered under what that
 * handshake negotiated, as soon as the server's answer is in: not under the session before it
 * (a reconnect to a server that changed version) nor under the version merely offered.
 */
import { FakeTransport, fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import type { McpResponse } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { connectionEachTime } from "./harness.js";

const FORM = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

/**
 * A connection offering elicitation whose n-th server answers `versions[n]`; each asks an
 * elicitation as the client confirms the handshake (`notifications/initialized`), before the
 * session is made. Returns what each was answered and how often the user's handler ran.
 */
function elicitingAsConfirmed(versions: readonly string[]) {
  const answers: McpResponse[] = [];
  const asked: Promise<void>[] = [];
  const handled = { count: 0 };
  const transports: FakeTransport[] = [];
  const { connection } = connectionEachTime(() => fakeServer(), {
    features: {
      elicitation: async () => {
        handled.count += 1;
        return { action: "accept", content: { name: "Ada" } };
      },
    },
    connect: () => {
      const version = versions[transports.length] ?? "2025-11-25";
      const transport = new FakeTransport({
        ...fakeServer(),
        initialize: () => ok(initializeResult(version)),
      });
      const notify = transport.notify.bind(transport);
      transport.notify = (method, params) => {
        if (method === "notifications/initialized") {
          asked.push(
            transport.serverRequest("elicitation/create", FORM).then((answer) => void answers.push(answer)),
          );
        }
        return notify(method, params);
      };
      transports.push(transport);
      return transport;
    },
  });
  return { connection, answers, handled, settled: () => Promise.all(asked) };
}

describe("a server request during a handshake", () => {
  it("is refused when the version just negotiated does not define it (an elicitation under 2025-03-26)", async () => {
    const { connection, answers, handled, settled } = elicitingAsConfirmed(["2025-03-26"]);
    await connection.start();
    await settled();
    expect(answers).toMatchObject([{ ok: false, error: { code: -32601 } }]);
    expect(handled.count).toBe(0);
    await connection.close();
  });

  it("is answered under the new handshake's version after a reconnect, not the previous session's", async () => {
    // The server was on 2025-03-26 (no elicitation), and comes back on 2025-11-25.
    const { connection, answers, handled, settled } = elicitingAsConfirmed(["2025-03-26", "2025-11-25"]);
    await connection.start();
    await connection.reconnect();
    await settled();
    expect(answers).toMatchObject([
      { ok: false, error: { code: -32601 } },
      { ok: true, result: { action: "accept", content: { name: "Ada" } } },
    ]);
    expect(handled.count).toBe(1);
    await connection.close();
  });
});
