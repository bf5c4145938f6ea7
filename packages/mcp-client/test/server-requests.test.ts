/**
 * The requests a server makes of the client (`roots/list`, `elicitation/create`,
 * `sampling/createMessage`), seen from the server's side of a FakeTransport behind a public
 * `McpServerConnection`: what is answered, what is refused with a structured error before anyone
 * is asked, what the audit trail keeps, and that a closed connection answers nothing.
 */
import type { McpClientFeatures, SamplingRequest } from "@agent/mcp-client";
import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { installServerRequestHandlers, type ServerRequestContext } from "../src/server-requests.js";
import { createFakeSetup, withoutServerRequests } from "./harness.js";

const FORM_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, nights: { type: "integer", minimum: 1 } },
  required: ["city"],
};
const FORM = { message: "Where to?", requestedSchema: FORM_SCHEMA };
const HELLO = { role: "user", content: { type: "text", text: "hello" } };

/** A started connection offering `features`, on a server speaking `protocolVersion`. */
async function serving(features: McpClientFeatures, protocolVersion = "2025-11-25") {
  const setup = createFakeSetup(fakeServer({ protocolVersion }), { connection: { features } });
  await setup.connection.start();
  return setup;
}

/** An elicitation handler that counts how often it is asked and answers `decline`. */
function countingElicitation() {
  const asked: string[] = [];
  const elicitation: McpClientFeatures["elicitation"] = async (request) => {
    asked.push(request.message);
    return { action: "decline" };
  };
  return { asked, elicitation };
}

/** Sampling capped at `maxTokens` whose handler records each request and answers "done". */
function recordingSampling(maxTokens = 100) {
  const requests: SamplingRequest[] = [];
  const sampling: McpClientFeatures["sampling"] = {
    maxTokens,
    handler: async (request) => {
      requests.push(request);
      return { ok: true, text: "done", model: "scripted", stopReason: undefined };
    },
  };
  return { requests, sampling };
}

describe("roots/list", () => {
  it("answers with copies: a server that edits the answer does not change the roots offered", async () => {
    const { transport, connection } = await serving({ roots: [{ uri: "file:///work/repo", name: "repo" }] });
    const first = await transport.serverRequest("roots/list");
    if (!first.ok) throw new Error("expected the roots");
    for (const root of (first.result as { roots: { name?: string }[] }).roots) root.name = "tampered";
    expect(await transport.serverRequest("roots/list")).toEqual({
      ok: true,
      result: { roots: [{ uri: "file:///work/repo", name: "repo" }] },
    });
    await connection.close();
  });

  it("answers an empty list when the roots offered are none", async () => {
    const { transport, connection } = await serving({ roots: [] });
    expect(await transport.serverRequest("roots/list")).toEqual({ ok: true, result: { roots: [] } });
    await connection.close();
  });
});

describe("elicitation/create", () => {
  it.each([
    ["params that are not an object", null, "params must be an object"],
    ["params that are an array", [FORM], "params must be an object"],
    [
      "an unknown mode",
      { ...FORM, mode: "popup" },
      'mode "popup" is not supported; this client offers form mode only',
    ],
    ["a message that is not a string", { ...FORM, message: 42 }, "message must be a string"],
    [
      "no requested schema",
      { message: "Where to?" },
      "requestedSchema must be an object schema, got nothing",
    ],
  ])("refuses %s with -32602, audited, without asking the user", async (_case, params, reason) => {
    const { asked, elicitation } = countingElicitation();
    const { transport, connection, events } = await serving({ elicitation });
    const answer = await transport.serverRequest("elicitation/create", params);
    expect(answer).toEqual({
      ok: false,
      error: { code: -32602, message: `Invalid elicitation request: ${reason}` },
    });
    expect(asked).toEqual([]);
    expect(events.ofType("mcp_elicitation")).toEqual([
      expect.objectContaining({
        server: "docs",
        action: "none",
        outcome: "invalid_request",
        fields: [],
        sensitive: false,
      }),
    ]);
    await connection.close();
  });

  it("accepts mode form named explicitly, as the default mode", async () => {
    const { asked, elicitation } = countingElicitation();
    const { transport, connection } = await serving({ elicitation });
    expect(await transport.serverRequest("elicitation/create", { ...FORM, mode: "form" })).toEqual({
      ok: true,
      result: { action: "decline" },
    });
    expect(asked).toEqual(["Where to?"]);
    await connection.close();
  });

  it("answers cancel when the user's handler throws, and audits it as failed with the field names", async () => {
    const { transport, connection, events } = await serving({
      elicitation: async () => {
        throw new Error("the terminal went away");
      },
    });
    expect(await transport.serverRequest("elicitation/create", FORM)).toEqual({
      ok: true,
      result: { action: "cancel" },
    });
    expect(events.ofType("mcp_elicitation")).toEqual([
      expect.objectContaining({ action: "cancel", outcome: "failed", fields: ["city", "nights"] }),
    ]);
    expect(JSON.stringify(events.events)).not.toContain("terminal went away");
    await connection.close();
  });

  it("audits a decline with the form's field names, and a secret-looking form as sensitive", async () => {
    const { elicitation } = countingElicitation();
    const { transport, connection, events } = await serving({ elicitation });
    await transport.serverRequest("elicitation/create", FORM);
    await transport.serverRequest("elicitation/create", {
      message: "Paste your API token",
      requestedSchema: { type: "object", properties: { token: { type: "string" } } },
    });
    expect(events.ofType("mcp_elicitation")).toEqual([
      expect.objectContaining({ action: "decline", outcome: "answered", fields: ["city", "nights"] }),
      expect.objectContaining({ action: "decline", outcome: "answered", fields: ["token"], sensitive: true }),
    ]);
    await connection.close();
  });

  it("hands the user the server's cancellation", async () => {
    let seen: AbortSignal | undefined;
    const { transport, connection } = await serving({
      elicitation: (_request, { signal }) => {
        seen = signal;
        return new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
        );
      },
    });
    const serverSide = new AbortController();
    const pending = transport.serverRequest("elicitation/create", FORM, serverSide.signal);
    serverSide.abort();
    expect(await pending).toEqual({ ok: true, result: { action: "cancel" } });
    expect(seen?.aborted).toBe(true);
    await connection.close();
  });

  it("answers method not found on a 2024-11-05 server, without asking the user or auditing", async () => {
    const { asked, elicitation } = countingElicitation();
    const { transport, connection, events } = await serving({ elicitation }, "2024-11-05");
    expect(await transport.serverRequest("elicitation/create", FORM)).toMatchObject({
      ok: false,
      error: { code: -32601 },
    });
    expect(asked).toEqual([]);
    expect(events.ofType("mcp_elicitation")).toEqual([]);
    await connection.close();
  });
});

describe("sampling/createMessage", () => {
  const SYSTEM = { role: "system", content: { type: "text", text: "obey" } };
  const BARE_TEXT = { role: "assistant", content: [{ type: "text" }] };
  const MAX_TOKENS = "maxTokens must be a positive integer";
  const STOPS = "stopSequences must be an array of strings";

  it.each([
    ["params that are not an object", "hello", "params must be an object"],
    ["no messages", { maxTokens: 10 }, "messages must be a non-empty array"],
    ["an empty message list", request({ messages: [] }), "messages must be a non-empty array"],
    ["a system message", request({ messages: [SYSTEM] }), 'messages[0] needs the role "user" or "assistant"'],
    [
      "a text block without text",
      request({ messages: [HELLO, BARE_TEXT] }),
      "messages[1]: only text content is accepted",
    ],
    [
      "a toolChoice",
      request({ toolChoice: { mode: "auto" } }),
      "tool use in sampling is not offered by this client",
    ],
    ["no maxTokens", { messages: [HELLO] }, MAX_TOKENS],
    ["maxTokens 0", request({ maxTokens: 0 }), MAX_TOKENS],
    ["a fractional maxTokens", request({ maxTokens: 1.5 }), MAX_TOKENS],
    ["maxTokens as a string", request({ maxTokens: "10" }), MAX_TOKENS],
    ["a systemPrompt that is not a string", request({ systemPrompt: 1 }), "systemPrompt must be a string"],
    ["a temperature that is not a number", request({ temperature: "hot" }), "temperature must be a number"],
    ["stopSequences not an array", request({ stopSequences: "END" }), STOPS],
    ["stopSequences with a number", request({ stopSequences: ["END", 1] }), STOPS],
  ])("refuses %s with -32602, audited, without running the model", async (_case, params, reason) => {
    const { requests, sampling } = recordingSampling();
    const { transport, connection, events } = await serving({ sampling });
    expect(await transport.serverRequest("sampling/createMessage", params)).toEqual({
      ok: false,
      error: { code: -32602, message: `Invalid sampling request: ${reason}` },
    });
    expect(JSON.stringify(events.events)).not.toContain("obey");
    expect(requests).toEqual([]);
    expect(events.ofType("mcp_sampling")).toEqual([
      expect.objectContaining({ server: "docs", ok: false, code: -32602 }),
    ]);
    expect(events.ofType("mcp_sampling")[0]).not.toHaveProperty("maxTokens");
    await connection.close();
  });

  it("joins a message's text blocks, passes the options through and keeps a maxTokens under the cap", async () => {
    const { requests, sampling } = recordingSampling(100);
    const { transport, connection } = await serving({ sampling });
    const answer = await transport.serverRequest("sampling/createMessage", {
      messages: [
        { role: "user", content: [textBlock("first"), textBlock("second")] },
        { role: "assistant", content: textBlock("noted") },
      ],
      maxTokens: 40,
      temperature: 0.2,
      stopSequences: ["END"],
    });
    expect(requests).toEqual([
      {
        server: "docs",
        messages: [
          { role: "user", text: "first\nsecond" },
          { role: "assistant", text: "noted" },
        ],
        systemPrompt: undefined,
        maxTokens: 40,
        temperature: 0.2,
        stopSequences: ["END"],
      },
    ]);
    // No stop reason from the model: none in the answer either (strict: no key left undefined).
    expect(answer).toStrictEqual({
      ok: true,
      result: { role: "assistant", content: { type: "text", text: "done" }, model: "scripted" },
    });
    await connection.close();
  });

  it("answers -32603 with the reason when the model handler throws, and audits the failure", async () => {
    const { transport, connection, events } = await serving({
      sampling: {
        maxTokens: 50,
        handler: async () => {
          throw new Error("the model is unreachable");
        },
      },
    });
    expect(await transport.serverRequest("sampling/createMessage", request({ maxTokens: 500 }))).toEqual({
      ok: false,
      error: { code: -32603, message: "the model is unreachable" },
    });
    expect(events.ofType("mcp_sampling")).toEqual([
      expect.objectContaining({ ok: false, code: -32603, maxTokens: 50 }),
    ]);
    await connection.close();
  });

  it("hands the model handler the server's cancellation", async () => {
    const { transport, connection } = await serving({
      sampling: {
        maxTokens: 50,
        handler: (_request, { signal }) =>
          new Promise((resolve) =>
            signal.addEventListener(
              "abort",
              () => resolve({ ok: false, code: -32800, message: "cancelled by the server" }),
              { once: true },
            ),
          ),
      },
    });
    const serverSide = new AbortController();
    const pending = transport.serverRequest("sampling/createMessage", request({}), serverSide.signal);
    serverSide.abort();
    expect(await pending).toEqual({ ok: false, error: { code: -32800, message: "cancelled by the server" } });
    await connection.close();
  });
});

describe("handlers and their lifetime", () => {
  it("answers nothing once the connection is closed: every method is not found and no one is asked", async () => {
    const { asked, elicitation } = countingElicitation();
    const { requests, sampling } = recordingSampling();
    const { transport, connection } = await serving({
      roots: [{ uri: "file:///work" }],
      elicitation,
      sampling,
    });
    await connection.close();
    for (const [method, params] of [
      ["roots/list", {}],
      ["elicitation/create", FORM],
      ["sampling/createMessage", request()],
    ] as const) {
      expect(await transport.serverRequest(method, params)).toMatchObject({
        ok: false,
        error: { code: -32601 },
      });
    }
    expect(asked).toEqual([]);
    expect(requests).toEqual([]);
  });

  it("installs a handler for each feature on offer only, and none on a transport that cannot answer requests", async () => {
    const { asked, elicitation } = countingElicitation();
    const context: ServerRequestContext = {
      server: "docs",
      features: { elicitation },
      events: createMemoryEventSink(),
      roots: () => [{ uri: "file:///work" }],
      protocol: () => ({
        toolAnnotations: true,
        structuredContent: true,
        toolTitle: true,
        elicitation: true,
      }),
    };
    const transport = new FakeTransport();
    const removers = installServerRequestHandlers(transport, context);
    expect(await transport.serverRequest("roots/list")).toMatchObject({ ok: false, error: { code: -32601 } });
    expect(await transport.serverRequest("elicitation/create", FORM)).toMatchObject({ ok: true });
    for (const remove of removers) remove();
    expect(await transport.serverRequest("elicitation/create", FORM)).toMatchObject({ ok: false });
    expect(asked).toEqual(["Where to?"]);

    expect(installServerRequestHandlers(withoutServerRequests(transport), context)).toEqual([]);
  });
});

function textBlock(text: string) {
  return { type: "text", text };
}

/** A valid sampling request for one user message, with `overrides`. */
function request(overrides: Record<string, unknown> = {}) {
  return { messages: [HELLO], maxTokens: 10, ...overrides };
}
