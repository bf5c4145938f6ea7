/**
 * Resources, prompts, roots, elicitation and sampling against real servers: server-everything over
 * stdio, and a 2024-11-05 server on the old SDK over stdio and over legacy HTTP+SSE.
 */
import type { McpClientFeatures, SamplingHandler } from "@agent/mcp-client";
import { legacyServerPath, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { createSseTransport } from "@agent/mcp-transport/http";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import { createClientHarness, everythingStdio, stdioHarness } from "./integration-helpers.js";

const ALLOW_ALL = { defaults: { external: "allow" as const } };

const scriptedSampling = (text: string): { handler: SamplingHandler; maxTokens: number; seen: unknown[] } => {
  const seen: unknown[] = [];
  return {
    maxTokens: 50,
    seen,
    handler: async (request) => {
      seen.push(request);
      return { ok: true, text, model: "scripted-model", stopReason: "endTurn" };
    },
  };
};

function textOf(outcome: unknown): string {
  return JSON.stringify(outcome);
}

describe("server-everything: resources and prompts through the gate", () => {
  it("lists resources, templates and prompts; reads and gets them only through registry tools", async () => {
    const { connection, env, registry } = everythingStdio({ policy: ALLOW_ALL });
    await connection.start();
    expect(connection.resources().length).toBeGreaterThan(0);
    expect(connection.resourceTemplates().length).toBeGreaterThan(0);
    expect(connection.prompts().map((prompt) => prompt.name)).toContain("simple-prompt");
    expect(connection.snapshot().catalog.rejected).toEqual([]);
    const listed = await executeToolCall({ name: "mcp_server__everything__list_resources", input: {} }, env);
    expect(listed).toMatchObject({ ok: true });
    const first = connection.resources()[0];
    const read = await executeToolCall(
      { name: "mcp_server__everything__read_resource", input: { uri: first?.uri } },
      env,
    );
    expect(read).toMatchObject({
      ok: true,
      output: { content: [{ type: "resource", resource: { uri: first?.uri } }] },
    });
    // A templated URI the server advertised through its template.
    const template = connection.resourceTemplates()[0]?.uriTemplate ?? "";
    const templated = template.replace(/\{[^}]+\}/, "1");
    expect(
      await executeToolCall(
        { name: "mcp_server__everything__read_resource", input: { uri: templated } },
        env,
      ),
    ).toMatchObject({ ok: true });
    const prompt = await executeToolCall(
      { name: "mcp_server__everything__get_prompt", input: { name: "simple-prompt" } },
      env,
    );
    expect(textOf(prompt)).toContain("This is a simple prompt without arguments.");
    expect(registry.get("mcp_server__everything__read_resource")?.effect).toBe("external");
  });

  it("holds a read by default and sends nothing", async () => {
    const { connection, env, events } = everythingStdio();
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp_server__everything__read_resource", input: { uri: connection.resources()[0]?.uri } },
      env,
    );
    expect(outcome).toMatchObject({ type: "waiting" });
    expect(
      events.ofType("mcp_request_finished").filter((event) => event.method === "resources/read"),
    ).toEqual([]);
  });
});

describe("server-everything: what the client offers", () => {
  const features = (over: McpClientFeatures = {}): McpClientFeatures => ({
    roots: [{ uri: "file:///work/repo", name: "repo" }],
    elicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
    sampling: scriptedSampling("sampled text"),
    ...over,
  });

  it("answers roots, elicitation (with SEP-1034 defaults) and sampling demo tools", async () => {
    const sampling = scriptedSampling("sampled text");
    const { connection, env, events } = everythingStdio({
      policy: ALLOW_ALL,
      connection: { features: features({ sampling }) },
    });
    await connection.start();
    const roots = await executeToolCall({ name: "mcp__everything__get-roots-list", input: {} }, env);
    expect(textOf(roots)).toContain("file:///work/repo");
    const elicited = await executeToolCall(
      { name: "mcp__everything__trigger-elicitation-request", input: {} },
      env,
    );
    expect(textOf(elicited)).toContain("Name: Ada");
    // The server's defaults were filled in: 42 is the default of "integer".
    expect(textOf(elicited)).toContain("Favorite Integer: 42");
    expect(events.ofType("mcp_elicitation")[0]).toMatchObject({ action: "accept", outcome: "answered" });
    expect(JSON.stringify(events.ofType("mcp_elicitation"))).not.toContain("Ada");
    const sampled = await executeToolCall(
      { name: "mcp__everything__trigger-sampling-request", input: { prompt: "hello", maxTokens: 500 } },
      env,
    );
    expect(textOf(sampled)).toContain("sampled text");
    expect(sampling.seen[0]).toMatchObject({ maxTokens: 50, systemPrompt: "You are a helpful test server." });
  });

  it("answers a declined elicitation and a refused sampling as such", async () => {
    const { connection, env } = everythingStdio({
      policy: ALLOW_ALL,
      connection: {
        features: features({
          elicitation: async () => ({ action: "decline" }),
          sampling: {
            maxTokens: 50,
            handler: async () => ({ ok: false, code: -1, message: "held for approval apr_1" }),
          },
        }),
      },
    });
    await connection.start();
    const declined = await executeToolCall(
      { name: "mcp__everything__trigger-elicitation-request", input: {} },
      env,
    );
    expect(textOf(declined)).toContain("declined");
    const refused = await executeToolCall(
      { name: "mcp__everything__trigger-sampling-request", input: { prompt: "hello" } },
      env,
    );
    expect(refused).toMatchObject({ ok: false });
    expect(textOf(refused)).toContain("held for approval apr_1");
  });
});

describe("a 2024-11-05 server on the old SDK", () => {
  const check = async (harness: ReturnType<typeof createClientHarness>) => {
    const { connection, env, registry } = harness;
    await connection.start();
    expect(connection.protocolVersion).toBe("2024-11-05");
    // Sent anyway by the server, not defined by its version: ignored.
    expect(registry.get("mcp__legacy__echo")?.annotations).toBeUndefined();
    const echo = await executeToolCall({ name: "mcp__legacy__echo", input: { message: "old" } }, env);
    expect(echo).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "old" }] } });
    expect(textOf(echo)).not.toContain("not a number");
    const roots = await executeToolCall({ name: "mcp__legacy__list-roots", input: {} }, env);
    expect(textOf(roots)).toContain("file:///work/repo");
    const sampled = await executeToolCall({ name: "mcp__legacy__sample", input: { prompt: "hi" } }, env);
    expect(textOf(sampled)).toContain("old answer");
    const read = await executeToolCall(
      { name: "mcp_server__legacy__read_resource", input: { uri: "legacy://notes/1" } },
      env,
    );
    expect(textOf(read)).toContain("the first note");
  };
  const features: McpClientFeatures = {
    roots: [{ uri: "file:///work/repo" }],
    sampling: scriptedSampling("old answer"),
  };

  it("works over stdio", async () => {
    await check(
      stdioHarness(
        { command: process.execPath, args: [legacyServerPath()] },
        { name: "legacy", policy: ALLOW_ALL, connection: { features } },
      ),
    );
  });

  it("works over legacy HTTP+SSE", async () => {
    const server = await startLoopbackHttpServer(legacyServerPath(), ["sse"], { path: "/sse" });
    onTestFinished(server.kill);
    const harness = createClientHarness(
      () => createSseTransport({ url: server.url, closeTimeoutMs: 1_000 }),
      {
        name: "legacy",
        policy: ALLOW_ALL,
        connection: { features },
      },
    );
    onTestFinished(() => harness.connection.close());
    await check(harness);
  });
});
