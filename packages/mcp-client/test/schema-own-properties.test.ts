/**
 * Validation looks at an input's own properties only. A plain object inherits `constructor`,
 * `toString`, `hasOwnProperty` and more from Object.prototype; none of them may satisfy `required`,
 * and an optional field with such a name validates as declared. Tested on a converted tool's
 * `prepare` and through the executor, where a rejected call never reaches the server.
 */
import { toLocalTool } from "@agent/mcp-client";
import { fakeServer, tool } from "@agent/mcp-testing";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { convertInputSchema, MAX_INPUT_DEPTH } from "../src/schema/index.js";
import { ALLOW_EXTERNAL, createFakeSetup, EMPTY_ANSWERS } from "./harness.js";

const INHERITED = {
  type: "object",
  properties: {
    constructor: { type: "string" },
    toString: { type: "number" },
    hasOwnProperty: { type: "boolean" },
    valueOf: {
      type: "object",
      properties: { isPrototypeOf: { type: "string" } },
      required: ["isPrototypeOf"],
    },
  },
  required: ["constructor"],
};

/** A required field that accepts anything: only its presence is checked, so only ownership decides. */
const REQUIRED_ANYTHING = {
  type: "object",
  properties: { constructor: { description: "any value" }, toString: { description: "any value" } },
  required: ["constructor", "toString"],
};

function descriptor(inputSchema: unknown) {
  return {
    server: "docs",
    remoteName: "lookup",
    description: "",
    inputSchema: inputSchema as Record<string, unknown>,
    outputSchema: undefined,
    annotations: undefined,
    title: undefined,
  };
}

function prepareOf(inputSchema: unknown) {
  const mapped = toLocalTool(descriptor(inputSchema), EMPTY_ANSWERS);
  if (!mapped.ok) throw new Error(mapped.reason);
  return (input: unknown) => mapped.tool.prepare(input);
}

describe("own properties only, through prepare", () => {
  const prepare = prepareOf(INHERITED);

  it('does not let Object.prototype satisfy required: ["constructor"]', () => {
    expect(prepare({})).toMatchObject({ ok: false, issues: [{ path: ["constructor"] }] });
    const prepareAnything = prepareOf(REQUIRED_ANYTHING);
    expect(prepareAnything({})).toMatchObject({
      ok: false,
      issues: [{ path: ["constructor"] }, { path: ["toString"] }],
    });
    expect(prepareAnything({ constructor: null, toString: [] })).toMatchObject({ ok: true });
  });

  it("accepts the optional fields absent, and validates them as declared when present", () => {
    expect(prepare({ constructor: "x" })).toMatchObject({ ok: true, input: { constructor: "x" } });
    expect(
      prepare({ constructor: "x", toString: 1, hasOwnProperty: true, valueOf: { isPrototypeOf: "y" } }),
    ).toMatchObject({ ok: true });
    expect(prepare({ constructor: "x", toString: "1" })).toMatchObject({
      ok: false,
      issues: [{ path: ["toString"] }],
    });
    expect(prepare({ constructor: 1 })).toMatchObject({ ok: false });
    // Nested too: an object inherits isPrototypeOf, which must not count as present.
    expect(prepare({ constructor: "x", valueOf: {} })).toMatchObject({
      ok: false,
      issues: [{ path: ["valueOf", "isPrototypeOf"] }],
    });
  });

  it("forwards an ordinary object, with the inherited-looking keys as own data", () => {
    const prepared = prepare({ constructor: "x", toString: 2 });
    if (!prepared.ok) throw new Error("rejected");
    expect(Object.getPrototypeOf(prepared.input)).toBe(Object.prototype);
    expect(Object.keys(prepared.input as object)).toEqual(["constructor", "toString"]);
    expect(JSON.stringify(prepared.input)).toBe('{"constructor":"x","toString":2}');
  });

  it("applies the same rule to dependentRequired, allOf and contains", () => {
    const prepareMore = prepareOf({
      type: "object",
      properties: {
        a: { type: "string" },
        list: {
          type: "array",
          contains: { type: "object", properties: { toString: { type: "string" } }, required: ["toString"] },
        },
      },
      dependentRequired: { a: ["constructor"] },
      allOf: [{ type: "object", properties: { valueOf: { type: "number" } } }],
    });
    expect(prepareMore({ a: "x" }).ok).toBe(false);
    expect(prepareMore({ a: "x", constructor: 1 }).ok).toBe(true);
    expect(prepareMore({ list: [{}] }).ok).toBe(false);
    expect(prepareMore({ list: [{ toString: "s" }] }).ok).toBe(true);
    expect(prepareMore({}).ok).toBe(true);
  });

  it("refuses a __proto__ property at discovery, with a reason", () => {
    const mapped = toLocalTool(
      descriptor(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')),
      EMPTY_ANSWERS,
    );
    expect(mapped).toEqual({
      ok: false,
      reason:
        'unsupported_input_schema: #/properties/__proto__: a property named "__proto__" is not supported',
    });
  });

  it(`gives a structured issue, not a stack overflow, for inputs nested deeper than ${MAX_INPUT_DEPTH} levels`, () => {
    const conversion = convertInputSchema({ type: "object", properties: { deep: {} } });
    if (!conversion.ok) throw new Error(conversion.reason);
    let deep: unknown = 0;
    for (let level = 0; level < 20_000; level += 1) deep = [deep];
    const parsed = conversion.schema.safeParse({ deep });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      `the input is nested deeper than ${MAX_INPUT_DEPTH} levels`,
    );
  });
});

describe("own properties only, through the executor", () => {
  it("answers invalid_arguments and sends nothing to the server", async () => {
    const { connection, transport, env } = createFakeSetup(
      fakeServer({
        tools: [
          tool({ name: "lookup", inputSchema: INHERITED }),
          tool({ name: "any", inputSchema: REQUIRED_ANYTHING }),
        ],
      }),
      { policy: ALLOW_EXTERNAL },
    );
    await connection.start();
    const missing = await executeToolCall({ name: "mcp__docs__lookup", input: {} }, env);
    const inherited = await executeToolCall({ name: "mcp__docs__any", input: {} }, env);
    expect(inherited).toMatchObject({ type: "observation", ok: false, error: "invalid_arguments" });
    const wrong = await executeToolCall(
      { name: "mcp__docs__lookup", input: { constructor: "x", toString: "1" } },
      env,
    );
    expect(missing).toMatchObject({ type: "observation", ok: false, error: "invalid_arguments" });
    expect(wrong).toMatchObject({ type: "observation", ok: false, error: "invalid_arguments" });
    expect(transport.requestsFor("tools/call")).toHaveLength(0);

    const valid = await executeToolCall({ name: "mcp__docs__lookup", input: { constructor: "x" } }, env);
    expect(valid).toMatchObject({ type: "observation", ok: true });
    expect(transport.requestsFor("tools/call").map((call) => call.params)).toEqual([
      { name: "lookup", arguments: { constructor: "x" } },
    ]);
    await connection.close();
  });
});
