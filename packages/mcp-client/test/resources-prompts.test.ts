import { fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

const RESOURCES = [
  { uri: "docs://guide/intro", name: "intro", mimeType: "text/markdown" },
  { uri: "not a uri", name: "broken" },
];

function catalogServer(overrides: Record<string, unknown> = {}) {
  return {
    ...fakeServer(),
    initialize: () =>
      ok(initializeResult("2025-11-25", { tools: {}, resources: { listChanged: true }, prompts: {} })),
    "resources/list": (params: unknown) =>
      (params as { cursor?: string }).cursor === undefined
        ? ok({ resources: [RESOURCES[0]], nextCursor: "2" })
        : ok({ resources: [RESOURCES[1]] }),
    "resources/templates/list": () =>
      ok({ resourceTemplates: [{ uriTemplate: "docs://page/{id}", name: "page" }] }),
    "resources/read": (params: unknown) =>
      ok({ contents: [{ uri: (params as { uri: string }).uri, mimeType: "text/plain", text: "hello" }] }),
    "prompts/list": () =>
      ok({ prompts: [{ name: "review", arguments: [{ name: "code", required: true }, { name: "style" }] }] }),
    "prompts/get": (params: unknown) =>
      ok({
        description: "A review",
        messages: [{ role: "user", content: { type: "text", text: `Review ${JSON.stringify(params)}` } }],
      }),
    ...overrides,
  };
}

describe("resources and prompts", () => {
  it("lists them at discovery (paginated, checked) and registers built-in tools named apart from the server's", async () => {
    const { connection, registry, events } = createFakeSetup(catalogServer());
    await connection.start();
    expect(connection.resources()).toEqual([RESOURCES[0]]);
    expect(connection.resourceTemplates()).toEqual([{ uriTemplate: "docs://page/{id}", name: "page" }]);
    expect(connection.prompts()[0]?.name).toBe("review");
    expect(connection.snapshot().catalog.rejected).toEqual([
      { kind: "resource", name: "broken", reason: "the uri is not an absolute URI" },
    ]);
    expect(registry.names()).toEqual([
      "mcp__docs__search",
      "mcp_server__docs__list_resources",
      "mcp_server__docs__read_resource",
      "mcp_server__docs__get_prompt",
    ]);
    for (const name of registry.names()) expect(registry.get(name)?.effect).toBe("external");
    expect(events.ofType("mcp_resources_listed")[0]).toMatchObject({
      resources: 1,
      templates: 1,
      rejected: 1,
    });
    await connection.close();
  });

  it("reads only advertised URIs, through the gate, as MCP content blocks", async () => {
    const { connection, env, transport } = createFakeSetup(catalogServer(), { policy: ALLOW_EXTERNAL });
    await connection.start();
    const read = (uri: string) =>
      executeToolCall({ name: "mcp_server__docs__read_resource", input: { uri } }, env);
    expect(await read("docs://guide/intro")).toMatchObject({
      ok: true,
      output: { content: [{ type: "resource", resource: { uri: "docs://guide/intro", text: "hello" } }] },
    });
    expect(await read("docs://page/42")).toMatchObject({ ok: true });
    expect(await read("file:///etc/passwd")).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(await read("docs://page/42/../../secret")).toMatchObject({
      ok: false,
      error: "invalid_arguments",
    });
    expect(transport.requestsFor("resources/read").map((request) => request.params)).toEqual([
      { uri: "docs://guide/intro" },
      { uri: "docs://page/42" },
    ]);
    await connection.close();
  });

  it("holds a read for approval by default: effect external, nothing sent", async () => {
    const { connection, env, transport } = createFakeSetup(catalogServer());
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp_server__docs__read_resource", input: { uri: "docs://guide/intro" } },
      env,
    );
    expect(outcome).toMatchObject({ type: "waiting", reason: "approval_required" });
    expect(transport.requestsFor("resources/read")).toHaveLength(0);
    await connection.close();
  });

  it("lets a policy rule name the server", async () => {
    const { connection, env, transport } = createFakeSetup(catalogServer(), {
      policy: { rules: [{ tool: "mcp_server__docs__*", decision: "deny", reason: "no docs" }] },
    });
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp_server__docs__read_resource", input: { uri: "docs://guide/intro" } },
      env,
    );
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
    expect(transport.requestsFor("resources/read")).toHaveLength(0);
    await connection.close();
  });

  it("gets a prompt with its arguments checked against the listing", async () => {
    const { connection, env, transport } = createFakeSetup(catalogServer(), { policy: ALLOW_EXTERNAL });
    await connection.start();
    const get = (input: unknown) => executeToolCall({ name: "mcp_server__docs__get_prompt", input }, env);
    expect(await get({ name: "review", arguments: { code: "x = 1" } })).toMatchObject({
      ok: true,
      output: { description: "A review", messages: [{ role: "user", content: { type: "text" } }] },
    });
    expect(await get({ name: "review" })).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(await get({ name: "review", arguments: { code: "x", other: "y" } })).toMatchObject({
      error: "invalid_arguments",
    });
    expect(await get({ name: "missing" })).toMatchObject({ error: "invalid_arguments" });
    expect(transport.requestsFor("prompts/get")).toHaveLength(1);
    await connection.close();
  });

  it("lists again on notifications/resources/list_changed", async () => {
    let resources = [RESOURCES[0]];
    const { connection, transport } = createFakeSetup(
      catalogServer({ "resources/list": () => ok({ resources }) }),
    );
    await connection.start();
    resources = [{ uri: "docs://guide/next", name: "next" }];
    transport.pushNotification("notifications/resources/list_changed");
    for (let tries = 0; connection.resources()[0]?.uri !== "docs://guide/next" && tries < 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(connection.resources()).toEqual(resources);
    await connection.close();
  });

  it("treats a missing templates method as no templates, and registers nothing for a server without resources", async () => {
    const withoutTemplates = createFakeSetup(catalogServer({ "resources/templates/list": undefined }));
    await withoutTemplates.connection.start();
    expect(withoutTemplates.connection.state).toBe("ready");
    expect(withoutTemplates.connection.resourceTemplates()).toEqual([]);
    expect(withoutTemplates.registry.get("mcp_server__docs__read_resource")).toBeDefined();
    await withoutTemplates.connection.close();
    const plain = createFakeSetup(fakeServer());
    await plain.connection.start();
    expect(plain.registry.names()).toEqual(["mcp__docs__search"]);
    expect(plain.transport.methods).not.toContain("resources/list");
    await plain.connection.close();
  });
});
