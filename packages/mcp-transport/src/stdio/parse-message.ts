import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { isResultWithoutMeta } from "../sdk/result-schema.js";

/**
 * One line of a server's stdout as a JSON-RPC 2.0 message, or undefined for anything else (such
 * lines are skipped, not fatal). Accepts exactly what the SDK's `JSONRPCMessageSchema` accepts.
 *
 * The common answer, `{"jsonrpc":"2.0","id":N,"result":{...}}` with no `_meta` in its result, is
 * recognized by hand: that check accepts only what the schema accepts, and returns what the schema
 * would (a result object keeps all its members, the schema being loose). A result with an own
 * `__proto__` member, which the schema's copy drops, and every other line go through the schema
 * itself. The schema's union costs several microseconds per answer, a large part of a governed
 * call's client time (see `pnpm bench`).
 */
export function parseMessage(text: string): JSONRPCMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (isPlainResultResponse(value)) return value as JSONRPCMessage;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Exactly the members `jsonrpc: "2.0"`, `id` (a string or a safe integer) and `result` (an object
 * without `_meta`): a JSON-RPC result response the SDK's strict schema accepts unchanged.
 */
function isPlainResultResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const message = value as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  if (message.jsonrpc !== "2.0") return false;
  const { id, result } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  if (!isResultWithoutMeta(result) || Object.hasOwn(result as object, "__proto__")) return false;
  // The schema is strict: one member more (even `__proto__`, an own member after JSON.parse) fails.
  let members = 0;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) return false;
    members += 1;
  }
  return members === 3 && Object.hasOwn(message, "id") && Object.hasOwn(message, "result");
}
