import { JSONRPCMessageSchema, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ANY_RESULT_SCHEMA } from "../src/sdk/result-schema.js";
import { parseMessage } from "../src/stdio/parse-message.js";

// What the SDK's own schema makes of a line: the reference our hand-made fast path must match.
function referenceParse(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const RESULTS: unknown[] = [
  {},
  { content: [{ type: "text", text: "hello" }] },
  { content: [], isError: true, structuredContent: { a: [1, 2] } },
  { tools: [], nextCursor: "x" },
  { _meta: {} },
  { _meta: { progressToken: 1 } },
  { _meta: { progressToken: 1.5 } },
  { _meta: "not an object" },
  { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t", extra: 1 } } },
  [],
  [1],
  null,
  "text",
  7,
];
const IDS: unknown[] = [0, 1, -3, 2 ** 53 - 1, 2 ** 53, 1.5, "abc", "", null, true, {}, []];

function lines(): string[] {
  const out: string[] = [];
  for (const id of IDS) {
    for (const result of RESULTS) {
      out.push(JSON.stringify({ jsonrpc: "2.0", id, result }));
      out.push(JSON.stringify({ id, result, jsonrpc: "2.0" }));
      out.push(JSON.stringify({ jsonrpc: "2.0", id, result, extra: 1 }));
      out.push(JSON.stringify({ jsonrpc: "1.0", id, result }));
      out.push(JSON.stringify({ jsonrpc: "2.0", result }));
    }
    out.push(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message: "bad" } }));
    out.push(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
  }
  out.push(
    '{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{"x":1}}',
    '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"isError":true}}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
    '{"jsonrpc":"2.0","id":1,"result":{}',
    "not json",
    "[]",
    "null",
    '"2.0"',
  );
  return out;
}

describe("parseMessage (stdio lines)", () => {
  it("accepts exactly what the SDK's JSONRPCMessageSchema accepts, with the same content", () => {
    for (const line of lines()) {
      const expected = referenceParse(line);
      const actual = parseMessage(line);
      expect({ line, accepted: actual !== undefined }).toEqual({ line, accepted: expected !== undefined });
      if (expected !== undefined) expect(actual, line).toEqual(expected);
    }
  });

  it("treats a result's own __proto__ member as the schema does: dropped, never a prototype", () => {
    const message = parseMessage(
      '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"isError":true},"a":1}}',
    ) as {
      result: Record<string, unknown>;
    };
    expect(Object.getPrototypeOf(message.result)).toBe(Object.prototype);
    expect(Object.hasOwn(message.result, "__proto__")).toBe(false);
    expect(message.result.isError).toBeUndefined();
    expect(message.result.a).toBe(1);
  });
});

describe("ANY_RESULT_SCHEMA (what Protocol.request checks results against)", () => {
  it("accepts exactly what the SDK's ResultSchema accepts", () => {
    for (const result of RESULTS) {
      expect({ result, success: ANY_RESULT_SCHEMA.safeParse(result).success }).toEqual({
        result,
        success: ResultSchema.safeParse(result).success,
      });
    }
  });

  it("checks an inherited _meta as the schema does", () => {
    const inherited = Object.create({ _meta: "not an object" }) as object;
    expect(ANY_RESULT_SCHEMA.safeParse(inherited).success).toBe(ResultSchema.safeParse(inherited).success);
  });

  it("returns the result itself, not a copy", () => {
    const result = { content: [{ type: "text", text: "hi" }] };
    const parsed = ANY_RESULT_SCHEMA.safeParse(result);
    expect(parsed.success && parsed.data).toBe(result);
  });
});
