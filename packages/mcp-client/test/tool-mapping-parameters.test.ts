import { createMemoryEventSink, executeToolCall, type ToolGate, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpToolDescriptor } from "../src/discovery.js";
import { type RemoteToolPort, toLocalTool } from "../src/tool-mapping.js";

/** The contact schema of the conformance scenario json-schema-2020-12-preservation, with a header annotation. */
const contactSchema = JSON.parse(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": { "address": { "$anchor": "addressDef", "type": "object",
    "properties": { "street": { "type": "string" }, "city": { "type": "string" } } } },
  "properties": {
    "name": { "type": "string", "x-mcp-header": "Contact-Name" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string" },
    "email": { "type": "string" }
  },
  "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
  "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}`);

function descriptor(inputSchema: Record<string, unknown>): McpToolDescriptor {
  return {
    server: "crm",
    remoteName: "add_contact",
    description: "Adds a contact",
    inputSchema,
    outputSchema: undefined,
    annotations: undefined,
    title: undefined,
  };
}

/** A port that records the arguments of every call it forwards. */
function recordingPort(): RemoteToolPort & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    async callTool(_name, args) {
      calls.push(args);
      return { ok: true, result: { content: [{ type: "text", text: "added" }] } };
    },
  };
}

const ALLOW: ToolGate = {
  async admit() {
    return { type: "allow", via: "policy", isolation: "none", run: (execute) => execute() };
  },
};

function setup(inputSchema: Record<string, unknown>) {
  const port = recordingPort();
  const mapped = toLocalTool(descriptor(inputSchema), port);
  if (!mapped.ok) throw new Error(mapped.reason);
  const registry = new ToolRegistry();
  registry.register(mapped.tool);
  const call = (input: unknown) =>
    executeToolCall(
      { name: mapped.tool.name, input },
      { registry, gate: ALLOW, runId: "run_1", cwd: "/work", events: createMemoryEventSink() },
    );
  return { tool: mapped.tool, port, call };
}

describe("a remote tool whose schema uses if/then/else and $anchor", () => {
  it("shows the model the schema as the server wrote it, without header annotations", () => {
    const { tool } = setup(contactSchema);
    const { "x-mcp-header": _header, ...name } = contactSchema.properties.name;
    expect(tool.parameters).toEqual({ ...contactSchema, properties: { ...contactSchema.properties, name } });
    expect(JSON.stringify(tool.parameters)).not.toContain("x-mcp-header");
  });

  it("has no strict variant, and says why", () => {
    expect(setup(contactSchema).tool.strictParameters).toMatchObject({ compatible: false });
  });

  it("forwards a call the schema accepts", async () => {
    const { port, call } = setup(contactSchema);
    const input = { contactMethod: "phone", phone: "555", address: { city: "Oslo" } };
    expect(await call(input)).toMatchObject({ ok: true });
    expect(port.calls).toEqual([input]);
  });

  it.each([
    ["then unmet", { contactMethod: "phone", email: "a@b" }],
    ["else unmet", { contactMethod: "email", phone: "555" }],
    ["no contact at all", { name: "Ann" }],
    ["an undeclared property", { email: "a@b", fax: "1" }],
    ["a bad referenced definition", { email: "a@b", address: { city: 1 } }],
  ])("refuses a call with %s, which never reaches the server", async (_case, input) => {
    const { port, call } = setup(contactSchema);
    expect(await call(input)).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(port.calls).toEqual([]);
  });

  it("keeps the generated parameters, and so the fingerprint, of a schema without those keywords", () => {
    const plain = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const { tool } = setup({ $schema: "http://json-schema.org/draft-07/schema#", ...plain });
    expect(tool.parameters).toEqual({ ...plain, additionalProperties: {} });
  });
});
