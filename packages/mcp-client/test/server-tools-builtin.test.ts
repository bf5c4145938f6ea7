/**
 * The built-in tools of a server with resources or prompts (`list_resources`, `read_resource`,
 * `get_prompt`), built on a scripted catalog port and called through the real executor and policy
 * gate: what each validates before anything is sent, what goes out, and how the server's answer
 * (or a malformed one) comes back to the model.
 */
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import {
  createMemoryEventSink,
  executeToolCall,
  type JsonValue,
  ToolRegistry,
  toolFailure,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpPrompt, McpResource, McpResourceTemplate, RemoteCallResult } from "../src/index.js";
import {
  createPromptTool,
  createResourceTools,
  isAdvertised,
  type ServerCatalogPort,
} from "../src/server-tools-builtin.js";
import { ALLOW_EXTERNAL } from "./harness.js";

const INTRO: McpResource = { uri: "docs://guide/intro", name: "intro" };
const PAGES: McpResourceTemplate = { uriTemplate: "docs://page/{id}", name: "page" };
const REVIEW: McpPrompt = {
  name: "review",
  arguments: [
    { name: "code", required: true },
    { name: "style", required: false },
  ],
};

interface Listing {
  resources: McpResource[];
  templates: McpResourceTemplate[];
  prompts: McpPrompt[];
}

/** What the port was asked to send, with the call it was sent for. */
interface SentRequest {
  method: string;
  params: Record<string, unknown>;
  action: string;
  callId: string;
}

/** A catalog port for server "docs" that records each request and answers it with `answer()`. */
function scriptedPort(answer: () => RemoteCallResult) {
  const sent: SentRequest[] = [];
  let listing: Listing = { resources: [INTRO], templates: [PAGES], prompts: [REVIEW] };
  const port: ServerCatalogPort = {
    server: "docs",
    serverIdentity: { url: "https://docs.example/mcp" },
    resources: () => listing.resources,
    templates: () => listing.templates,
    prompts: () => listing.prompts,
    request: async (method, params, action, context) => {
      sent.push({ method, params, action, callId: context.callId });
      return answer();
    },
  };
  const relist = (next: Partial<Listing>) => {
    listing = { ...listing, ...next };
  };
  return { port, sent, relist };
}

/** The built-in tools of `port`, registered behind a gate that allows external tools. */
function builtinTools(port: ServerCatalogPort) {
  const registry = new ToolRegistry();
  registry.registerAll([...createResourceTools(port), createPromptTool(port)]);
  const events = createMemoryEventSink();
  const approvals = new InMemoryApprovalStore();
  const gate = createPolicyGate({ policy: definePolicy(ALLOW_EXTERNAL), approvals, events });
  const call = (action: string, input: unknown) =>
    executeToolCall(
      { name: `mcp_server__docs__${action}`, input },
      { registry, gate, events, runId: "run_builtin", cwd: "/work", timeoutMs: 1_000 },
    );
  return { registry, call };
}

/** A catalog whose server answers every request with `result`. */
function answering(result: unknown) {
  const scripted = scriptedPort(() => ({ ok: true, result }));
  return { ...scripted, ...builtinTools(scripted.port) };
}

const TEXT_CONTENTS = { contents: [{ uri: "docs://guide/intro", mimeType: "text/plain", text: "hello" }] };

describe("the built-in tools of a server", () => {
  it("are external tools in the server's group, each description naming its companion", () => {
    const { registry } = answering({});
    const tools = registry.listGroup("mcp:docs");
    expect(tools.map((tool) => tool.name)).toEqual([
      "mcp_server__docs__list_resources",
      "mcp_server__docs__read_resource",
      "mcp_server__docs__get_prompt",
    ]);
    for (const tool of tools) expect(tool.effect).toBe("external");
    expect(registry.get("mcp_server__docs__list_resources")?.description).toContain(
      "mcp_server__docs__read_resource",
    );
    expect(registry.get("mcp_server__docs__read_resource")?.description).toContain(
      "mcp_server__docs__list_resources",
    );
  });

  it("carry the server's identity in their fingerprints: another deployment's approvals cannot match", () => {
    const fingerprints = (serverIdentity: JsonValue | undefined) => {
      const { port } = scriptedPort(() => ({ ok: true, result: {} }));
      const { registry } = builtinTools({ ...port, serverIdentity });
      return registry.list().map((tool) => tool.fingerprint);
    };
    const here = fingerprints({ url: "https://docs.example/mcp" });
    expect(fingerprints({ url: "https://docs.example/mcp" })).toEqual(here);
    const elsewhere = fingerprints({ url: "https://evil.example/mcp" });
    const unnamed = fingerprints(undefined);
    for (const [index, fingerprint] of here.entries()) {
      expect(elsewhere[index]).not.toBe(fingerprint);
      expect(unnamed[index]).not.toBe(fingerprint);
    }
  });
});

describe("list_resources", () => {
  it("returns the listings as they are when called, and sends nothing", async () => {
    const { call, sent, relist } = answering({});
    expect(await call("list_resources", {})).toMatchObject({
      ok: true,
      output: { resources: [INTRO], resourceTemplates: [PAGES] },
    });
    relist({ resources: [], templates: [] });
    expect(await call("list_resources", {})).toMatchObject({
      ok: true,
      output: { resources: [], resourceTemplates: [] },
    });
    expect(sent).toEqual([]);
  });

  it("takes no arguments", async () => {
    const { call } = answering({});
    expect(await call("list_resources", { cursor: "2" })).toMatchObject({
      ok: false,
      error: "invalid_arguments",
    });
  });
});

describe("read_resource", () => {
  it("sends resources/read for a listed URI or one a listed template matches, on behalf of the call", async () => {
    const { call, sent } = answering(TEXT_CONTENTS);
    const listed = await call("read_resource", { uri: "docs://guide/intro" });
    expect(listed).toMatchObject({
      ok: true,
      output: { content: [{ type: "resource", resource: TEXT_CONTENTS.contents[0] }] },
    });
    expect(await call("read_resource", { uri: "docs://page/42" })).toMatchObject({ ok: true });
    expect(sent).toEqual([
      {
        method: "resources/read",
        params: { uri: "docs://guide/intro" },
        action: "read_resource",
        callId: listed.callId,
      },
      expect.objectContaining({ method: "resources/read", params: { uri: "docs://page/42" } }),
    ]);
  });

  it.each([
    ["a URI the server never advertised", { uri: "file:///etc/passwd" }],
    ["a URI that only starts like a listed one", { uri: "docs://guide/intro/../../secret" }],
    ["a URI that is not a string", { uri: 42 }],
    ["an argument besides the URI", { uri: "docs://guide/intro", as: "root" }],
    ["no URI", {}],
  ])("refuses %s as invalid arguments, sending nothing", async (_case, input) => {
    const { call, sent } = answering(TEXT_CONTENTS);
    expect(await call("read_resource", input)).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(sent).toEqual([]);
  });

  it("says what to do about an unadvertised URI, and checks against the listing of the moment", async () => {
    const { call, sent, relist } = answering(TEXT_CONTENTS);
    relist({ resources: [], templates: [] });
    expect(await call("read_resource", { uri: "docs://guide/intro" })).toMatchObject({
      error: "invalid_arguments",
      issues: [
        {
          path: ["uri"],
          message: 'not a URI the server "docs" advertised; list its resources first',
        },
      ],
    });
    expect(sent).toEqual([]);
  });

  it("passes text and blob contents on as resource blocks", async () => {
    const contents = [
      { uri: "docs://guide/intro", text: "hello" },
      { uri: "docs://guide/intro", mimeType: "image/png", blob: "iVBORw0KGgo=" },
    ];
    const { call } = answering({ contents });
    expect(await call("read_resource", { uri: "docs://guide/intro" })).toMatchObject({
      ok: true,
      output: { content: contents.map((resource) => ({ type: "resource", resource })) },
    });
  });
});

describe("get_prompt", () => {
  const MESSAGES = [{ role: "user", content: { type: "text", text: "Review x = 1" } }];

  it("sends prompts/get with the arguments given, and none when none are given", async () => {
    const { call, sent, relist } = answering({ description: "A review", messages: MESSAGES });
    expect(await call("get_prompt", { name: "review", arguments: { code: "x = 1" } })).toMatchObject({
      ok: true,
      output: { description: "A review", messages: MESSAGES },
    });
    relist({ prompts: [{ name: "greet", arguments: [] }] });
    await call("get_prompt", { name: "greet" });
    expect(sent.map(({ method, params, action }) => ({ method, params, action }))).toEqual([
      {
        method: "prompts/get",
        params: { name: "review", arguments: { code: "x = 1" } },
        action: "get_prompt",
      },
      { method: "prompts/get", params: { name: "greet" }, action: "get_prompt" },
    ]);
  });

  it.each([
    [
      "a prompt the server does not list",
      { name: "deploy" },
      ["name"],
      'the server "docs" lists no such prompt',
    ],
    [
      "a missing required argument",
      { name: "review", arguments: { style: "terse" } },
      ["arguments", "code"],
      "is required",
    ],
    [
      "an argument the prompt does not have",
      { name: "review", arguments: { code: "x", shell: "rm -rf /" } },
      ["arguments", "shell"],
      "is not an argument of this prompt",
    ],
  ])("refuses %s, saying where, and sends nothing", async (_case, input, path, message) => {
    const { call, sent } = answering({ messages: MESSAGES });
    expect(await call("get_prompt", input)).toMatchObject({
      ok: false,
      error: "invalid_arguments",
      issues: [{ path, message }],
    });
    expect(sent).toEqual([]);
  });

  it("refuses arguments that are not strings and inputs with other keys, sending nothing", async () => {
    const { call, sent } = answering({ messages: MESSAGES });
    for (const input of [
      { name: "review", arguments: { code: 1 } },
      { name: "review", arguments: { code: "x" }, role: "system" },
      { arguments: { code: "x" } },
    ]) {
      expect(await call("get_prompt", input)).toMatchObject({ ok: false, error: "invalid_arguments" });
    }
    expect(sent).toEqual([]);
  });

  it("keeps a description only when it is a string", async () => {
    const { call } = answering({ description: 42, messages: MESSAGES });
    const outcome = await call("get_prompt", { name: "review", arguments: { code: "x" } });
    expect(outcome).toMatchObject({ ok: true, output: { messages: MESSAGES } });
    expect(outcome).not.toHaveProperty("output.description");
  });
});

describe("what the server answers", () => {
  const READ = ["read_resource", { uri: "docs://guide/intro" }] as const;
  const GET = ["get_prompt", { name: "review", arguments: { code: "x" } }] as const;

  it.each([
    [...READ, { contents: "hello" }, "resources/read returned an object without a contents array"],
    [...READ, undefined, "resources/read returned nothing without a contents array"],
    [...READ, { contents: [{ text: "hello" }] }, "contents[0] needs a uri and a text or blob"],
    [...READ, { contents: [{ uri: "docs://guide/intro" }] }, "contents[0] needs a uri and a text or blob"],
    [...READ, { contents: [{ uri: "docs://a", text: "hi", mimeType: 7 }] }, "contents[0] needs a uri"],
    [...GET, { description: "A review" }, "prompts/get returned an object without a messages array"],
    [...GET, { messages: [{ role: "system", content: { type: "text" } }] }, "messages[0] needs a role"],
    [...GET, { messages: [{ role: "user" }] }, "messages[0] needs a role and a content block"],
    [...GET, { messages: [{ role: "user", content: {} }] }, "messages[0] needs a role and a content block"],
  ])("%s %j: an answer of %j is invalid (mcp_error -32603)", async (tool, input, result, reason) => {
    const { call } = answering(result);
    expect(await call(tool, input)).toMatchObject({
      ok: false,
      error: "mcp_error",
      code: -32603,
      message: expect.stringContaining(`The server's answer is invalid: ${reason}`),
    });
  });

  it.each([READ, GET])("passes a failed %s request on to the model unchanged", async (tool, input) => {
    const notFound = toolFailure("mcp_error", "Resource not found", { code: -32002 });
    const { call } = builtinTools(scriptedPort(() => ({ ok: false, failure: notFound })).port);
    expect(await call(tool, input)).toMatchObject({
      ok: false,
      error: "mcp_error",
      code: -32002,
      message: "Resource not found",
    });
  });
});

describe("isAdvertised", () => {
  const listing = (resources: McpResource[], templates: McpResourceTemplate[]) => ({
    resources: () => resources,
    templates: () => templates,
  });

  it("matches a listed URI exactly, or a listed template", () => {
    const catalog = listing([INTRO], [PAGES]);
    expect(isAdvertised(catalog, "docs://guide/intro")).toBe(true);
    expect(isAdvertised(catalog, "docs://page/42")).toBe(true);
    expect(isAdvertised(catalog, "docs://guide/intro2")).toBe(false);
    expect(isAdvertised(catalog, "docs://page/42/more")).toBe(false);
    expect(isAdvertised(listing([], []), "docs://guide/intro")).toBe(false);
  });

  it("lets a malformed template advertise nothing", () => {
    for (const uriTemplate of ["docs://page/{id", "docs://page/}{id}", "docs://page/{}"]) {
      expect(isAdvertised(listing([], [{ uriTemplate, name: "broken" }]), "docs://page/{id")).toBe(false);
      expect(isAdvertised(listing([], [{ uriTemplate, name: "broken" }]), "docs://page/1")).toBe(false);
    }
  });
});
