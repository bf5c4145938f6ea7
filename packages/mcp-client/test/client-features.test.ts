import {
  type ElicitationHandler,
  type McpClientFeatures,
  McpServerConnection,
  type SamplingHandler,
} from "@agent/mcp-client";
import { fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { negotiateEra } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { createFakeSetup, withoutServerRequests } from "./harness.js";

const FORM = {
  message: "Tell us about you",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", default: "John Doe" },
      age: { type: "integer", minimum: 0, default: 30 },
      color: { type: "string", enum: ["red", "green"], enumNames: ["Red", "Green"] },
      agree: { type: "boolean" },
    },
    required: ["agree"],
  },
};

async function connected(features: McpClientFeatures, version = "2025-11-25") {
  const setup = createFakeSetup(
    { ...fakeServer(), initialize: () => ok(initializeResult(version)) },
    { connection: { features } },
  );
  await setup.connection.start();
  return setup;
}

describe("what the client offers", () => {
  it("advertises nothing by default, and every server request gets method not found", async () => {
    const { transport, connection } = await connected({});
    expect(transport.requests[0]?.params).toHaveProperty("capabilities", {});
    for (const method of ["roots/list", "elicitation/create", "sampling/createMessage"]) {
      expect(await transport.serverRequest(method, {})).toMatchObject({ ok: false, error: { code: -32601 } });
    }
    await connection.close();
  });

  it("offers nothing over a transport that cannot take server requests, whatever features it was given", async () => {
    const setup = createFakeSetup(fakeServer());
    const fake = setup.transport;
    const connection = new McpServerConnection({
      name: "docs",
      connect: () => withoutServerRequests(fake),
      registry: setup.registry,
      features: { roots: [{ uri: "file:///work/repo" }], elicitation: async () => ({ action: "decline" }) },
    });
    await connection.start();
    expect(fake.requests[0]?.method).toBe("initialize");
    expect(fake.requests[0]?.params).toHaveProperty("capabilities", {});
    await connection.close();
  });

  it("offers nothing over an era-negotiating transport whose inner one cannot take server requests", async () => {
    const setup = createFakeSetup(fakeServer());
    const fake = setup.transport;
    const connection = new McpServerConnection({
      name: "docs",
      connect: () => negotiateEra(withoutServerRequests(fake)),
      registry: setup.registry,
      features: { roots: [{ uri: "file:///work/repo" }], elicitation: async () => ({ action: "decline" }) },
    });
    await connection.start();
    // The probe is refused (the fake server knows no server/discover): the handshake follows.
    const initialize = fake.requests.find((request) => request.method === "initialize");
    expect(initialize?.params).toHaveProperty("capabilities", {});
    await connection.close();
  });

  it("lists the roots it was given, and tells the server when they change", async () => {
    const { transport, connection } = await connected({
      roots: [{ uri: "file:///work/repo", name: "repo" }],
    });
    expect(transport.requests[0]?.params).toMatchObject({ capabilities: { roots: { listChanged: true } } });
    expect(await transport.serverRequest("roots/list")).toEqual({
      ok: true,
      result: { roots: [{ uri: "file:///work/repo", name: "repo" }] },
    });
    await connection.setRoots([{ uri: "file:///work/other" }]);
    expect(transport.notifications.map((call) => call.method)).toContain("notifications/roots/list_changed");
    expect(await transport.serverRequest("roots/list")).toMatchObject({
      result: { roots: [{ uri: "file:///work/other" }] },
    });
    await connection.close();
  });

  describe("elicitation", () => {
    it("applies the schema's defaults to an accepted answer (SEP-1034) and audits field names only", async () => {
      const seen: Parameters<ElicitationHandler>[0][] = [];
      const { transport, connection, events } = await connected({
        elicitation: async (request) => {
          seen.push(request);
          return { action: "accept", content: { agree: true, color: "green" } };
        },
      });
      expect(transport.requests[0]?.params).toMatchObject({ capabilities: { elicitation: { form: {} } } });
      const answer = await transport.serverRequest("elicitation/create", FORM);
      expect(answer).toEqual({
        ok: true,
        result: { action: "accept", content: { name: "John Doe", age: 30, color: "green", agree: true } },
      });
      expect(seen[0]).toMatchObject({ server: "docs", message: "Tell us about you", sensitive: false });
      expect(seen[0]?.fields.map((field) => field.name)).toEqual(["name", "age", "color", "agree"]);
      const audit = events.ofType("mcp_elicitation");
      expect(audit).toEqual([
        expect.objectContaining({
          action: "accept",
          outcome: "answered",
          fields: ["name", "age", "color", "agree"],
        }),
      ]);
      expect(JSON.stringify(audit)).not.toContain("green");
      await connection.close();
    });

    it("never sends an answer that breaks the schema: it cancels instead", async () => {
      const { transport, connection, events } = await connected({
        elicitation: async () => ({ action: "accept", content: { agree: "yes", extra: 1 } }),
      });
      expect(await transport.serverRequest("elicitation/create", FORM)).toEqual({
        ok: true,
        result: { action: "cancel" },
      });
      expect(events.ofType("mcp_elicitation")[0]).toMatchObject({
        action: "cancel",
        outcome: "invalid_answer",
      });
      await connection.close();
    });

    it("passes decline and cancel through", async () => {
      for (const action of ["decline", "cancel"] as const) {
        const { transport, connection } = await connected({ elicitation: async () => ({ action }) });
        expect(await transport.serverRequest("elicitation/create", FORM)).toEqual({
          ok: true,
          result: { action },
        });
        await connection.close();
      }
    });

    it("flags forms that ask for secrets", async () => {
      let sensitive: boolean | undefined;
      const { transport, connection } = await connected({
        elicitation: async (request) => {
          sensitive = request.sensitive;
          return { action: "decline" };
        },
      });
      await transport.serverRequest("elicitation/create", {
        message: "Sign in",
        requestedSchema: { type: "object", properties: { password: { type: "string" } } },
      });
      expect(sensitive).toBe(true);
      await connection.close();
    });

    it("refuses what a form cannot validate, and URL mode, without asking anyone", async () => {
      let asked = 0;
      const { transport, connection } = await connected({
        elicitation: async () => {
          asked += 1;
          return { action: "decline" };
        },
      });
      const nested = {
        message: "x",
        requestedSchema: { type: "object", properties: { a: { type: "object" } } },
      };
      expect(await transport.serverRequest("elicitation/create", nested)).toMatchObject({
        ok: false,
        error: { code: -32602 },
      });
      const url = { mode: "url", message: "x", url: "https://example.com", elicitationId: "1" };
      expect(await transport.serverRequest("elicitation/create", url)).toMatchObject({
        ok: false,
        error: { code: -32602 },
      });
      expect(asked).toBe(0);
      await connection.close();
    });

    it("is not answered for a server whose version has no elicitation", async () => {
      const { transport, connection } = await connected(
        { elicitation: async () => ({ action: "decline" }) },
        "2025-03-26",
      );
      expect(await transport.serverRequest("elicitation/create", FORM)).toMatchObject({
        ok: false,
        error: { code: -32601 },
      });
      await connection.close();
    });
  });

  describe("sampling", () => {
    it("caps the tokens, passes text messages, and audits without the text", async () => {
      const requests: Parameters<SamplingHandler>[0][] = [];
      const { transport, connection, events } = await connected({
        sampling: {
          maxTokens: 256,
          handler: async (request) => {
            requests.push(request);
            return { ok: true, text: "a haiku", model: "scripted", stopReason: "endTurn" };
          },
        },
      });
      expect(transport.requests[0]?.params).toMatchObject({ capabilities: { sampling: {} } });
      const answer = await transport.serverRequest("sampling/createMessage", {
        messages: [{ role: "user", content: { type: "text", text: "write a haiku" } }],
        systemPrompt: "be brief",
        maxTokens: 10_000,
      });
      expect(answer).toEqual({
        ok: true,
        result: {
          role: "assistant",
          content: { type: "text", text: "a haiku" },
          model: "scripted",
          stopReason: "endTurn",
        },
      });
      expect(requests[0]).toMatchObject({
        maxTokens: 256,
        systemPrompt: "be brief",
        messages: [{ role: "user", text: "write a haiku" }],
      });
      expect(events.ofType("mcp_sampling")).toEqual([expect.objectContaining({ ok: true, maxTokens: 256 })]);
      expect(JSON.stringify(events.events)).not.toContain("haiku");
      await connection.close();
    });

    it("answers a refusal with its error, and refuses tool use and non-text content", async () => {
      const { transport, connection } = await connected({
        sampling: {
          maxTokens: 100,
          handler: async () => ({ ok: false, code: -1, message: "the operator declined" }),
        },
      });
      const message = { role: "user", content: { type: "text", text: "hi" } };
      expect(
        await transport.serverRequest("sampling/createMessage", { messages: [message], maxTokens: 5 }),
      ).toEqual({
        ok: false,
        error: { code: -1, message: "the operator declined" },
      });
      const image = { role: "user", content: { type: "image", data: "AA==", mimeType: "image/png" } };
      expect(
        await transport.serverRequest("sampling/createMessage", { messages: [image], maxTokens: 5 }),
      ).toMatchObject({
        ok: false,
        error: { code: -32602 },
      });
      const tools = {
        messages: [message],
        maxTokens: 5,
        tools: [{ name: "x", inputSchema: { type: "object" } }],
      };
      expect(await transport.serverRequest("sampling/createMessage", tools)).toMatchObject({
        ok: false,
        error: { code: -32602 },
      });
      await connection.close();
    });
  });
});
