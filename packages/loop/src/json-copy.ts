// Past this depth a value is copied through JSON text instead, which also reports a cycle as
// JSON.stringify does (a TypeError) rather than as a stack overflow.
const MAX_STRUCTURAL_DEPTH = 256;

/**
 * A detached copy of `value` equal to what a JSON round trip (`JSON.parse(JSON.stringify(value))`)
 * gives, without the text in between: plain objects and arrays are rebuilt, strings are shared
 * (they are immutable, so a large output costs nothing), and anything JSON treats specially (a
 * `toJSON` method, a class instance, `NaN`, `undefined`) goes through JSON itself. What a store
 * keeps this way loads back as a durable store's would.
 */
export function copyJson<T>(value: T): T {
  return copyValue(value, 0) as T;
}

function copyValue(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object":
      if (value === null) return null;
      if (depth >= MAX_STRUCTURAL_DEPTH) return throughText(value);
      if (Array.isArray(value)) return copyArray(value, depth + 1);
      return isPlainObject(value) ? copyObject(value, depth + 1) : throughText(value);
    default:
      // undefined, functions and symbols have no JSON form (a member holding one is left out);
      // a bigint makes JSON.stringify throw, and so it does here.
      return throughText(value);
  }
}

function copyArray(values: readonly unknown[], depth: number): unknown[] {
  const copy = new Array<unknown>(values.length);
  for (let index = 0; index < values.length; index += 1) {
    copy[index] = copyValue(values[index], depth) ?? null;
  }
  return copy;
}

function copyObject(source: object, depth: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  // for-in rather than Object.keys: no array of keys per object. A plain object's prototype has
  // no enumerable members, but hasOwn keeps a polluted Object.prototype out, as JSON.stringify does.
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const member = copyValue((source as Record<string, unknown>)[key], depth);
    if (member === undefined) continue;
    // JSON.parse makes "__proto__" an own member; an assignment would set the copy's prototype.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = member;
  }
  return copy;
}

/** Whether JSON copies `value` member by member: a plain object (or one without prototype) with no `toJSON`. */
export function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return (
    (prototype === Object.prototype || prototype === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function"
  );
}

function throughText(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}
