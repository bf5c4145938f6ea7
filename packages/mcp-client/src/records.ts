import { isRecord } from "@agent/base";

// The package's JSON-value helpers, all imported from here; the plain-object guard is the shared one.
export { isRecord };

/** A short description of an unexpected value for error messages, never its whole content. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/**
 * A deep copy of JSON data, or undefined when one of its strings (object keys included) holds a lone
 * surrogate: such a value has no canonical JSON, so nothing can be fingerprinted from it.
 */
export function copyWellFormedJson<T>(value: T): T | undefined {
  try {
    return copyNode(value) as T;
  } catch (error) {
    if (error === LONE_SURROGATE) return undefined;
    throw error;
  }
}

const LONE_SURROGATE = Symbol("lone surrogate");

function copyNode(value: unknown): unknown {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw LONE_SURROGATE;
    return value;
  }
  if (Array.isArray(value)) return value.map(copyNode);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!key.isWellFormed()) throw LONE_SURROGATE;
    const item = copyNode(value[key]);
    // Assigning "__proto__" would set the prototype: define it, so that it stays data as JSON.parse keeps it.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else {
      copy[key] = item;
    }
  }
  return copy;
}

/**
 * Whether two JSON values are equal as their JSON text would be: the same scalars, arrays of equal
 * items, objects with equal values under the same keys in the same order. Iterative: a deeply
 * nested value cannot exhaust the stack.
 */
export function sameJson(left: unknown, right: unknown): boolean {
  const pending: unknown[] = [left, right];
  while (pending.length > 0) {
    const b = pending.pop();
    const a = pending.pop();
    if (a === b) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let index = 0; index < a.length; index += 1) {
        if (a[index] !== b[index]) pending.push(a[index], b[index]);
      }
      continue;
    }
    if (Array.isArray(b)) return false;
    const aRecord = a as Record<string, unknown>;
    const bRecord = b as Record<string, unknown>;
    const keys = Object.keys(aRecord);
    const otherKeys = Object.keys(bRecord);
    if (keys.length !== otherKeys.length) return false;
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      if (key !== otherKeys[index]) return false;
      if (aRecord[key] !== bRecord[key]) pending.push(aRecord[key], bRecord[key]);
    }
  }
  return true;
}
