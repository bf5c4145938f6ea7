/**
 * JSON Schema speaks of an object's own properties; zod asks `key in input`, which an inherited
 * member answers too: `{}` would "have" a `constructor`, and an optional `toString` would be checked
 * against `Object.prototype.toString`. So a converted schema validates a copy of the input whose
 * objects inherit nothing, and its result is copied back into ordinary objects. The copy also
 * refuses, with an issue, what no JSON Schema validation should have to face here: an own
 * `__proto__` key and nesting beyond {@link MAX_INPUT_DEPTH}. Both copies are iterative, so a deep
 * input cannot exhaust the stack.
 */
import { type ZodType, z } from "zod";

/** The deepest nesting of arrays and objects an input may have. */
export const MAX_INPUT_DEPTH = 1_000;

// The prototype of the copies zod validates: an object with no members and no prototype of its own,
// frozen, so no key is inherited. Not `Object.create(null)`: V8 makes every such object a dictionary
// (~300 bytes for a one-field input, and slow reads and for-in for zod), while objects made from
// this one keep fast properties.
const NO_MEMBERS: object = Object.freeze(Object.create(null));

/**
 * Wraps a converted schema so that it validates own properties only and returns ordinary objects.
 * `z.toJSONSchema` still shows the wrapped schema, as it shows a pipe's input side.
 */
export function validatingOwnProperties(schema: ZodType): ZodType {
  return z
    .preprocess((value, context) => {
      const copy = copyTree(value, true);
      if (copy.ok) return copy.value;
      context.addIssue({ code: "custom", message: copy.message, path: copy.path });
      return value;
    }, schema)
    .transform((value) => {
      const copy = copyTree(value, false);
      // The output of a validated input is as shallow as the input was: the copy cannot fail.
      return copy.ok ? copy.value : value;
    });
}

/**
 * A validator for a subschema applied from inside a check (`allOf`, `contains`): checks see zod's
 * output, whose objects are ordinary again, so the subschema gets its own copy that inherits nothing.
 */
export function ownPropertyValidator(schema: ZodType): (value: unknown) => boolean {
  const wrapped = validatingOwnProperties(schema);
  return (value) => wrapped.safeParse(value).success;
}

type Path = (string | number)[];

type TreeCopy = { ok: true; value: unknown } | { ok: false; message: string; path: Path };

interface Frame {
  source: object;
  target: Record<string | number, unknown>;
  depth: number;
  path: Path;
}

/** A copy of `root`, its objects inheriting nothing when `nullPrototype`, else ordinary ones. */
function copyTree(root: unknown, nullPrototype: boolean): TreeCopy {
  if (typeof root !== "object" || root === null) return { ok: true, value: root };
  const flat = copyFlatObject(root, nullPrototype);
  if (flat !== undefined) return flat;
  const empty = (source: object): Record<string | number, unknown> => {
    if (Array.isArray(source)) return [] as unknown as Record<number, unknown>;
    return nullPrototype ? (Object.create(NO_MEMBERS) as Record<string, unknown>) : {};
  };
  const result = empty(root);
  const stack: Frame[] = [{ source: root, target: result, depth: 1, path: [] }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > MAX_INPUT_DEPTH) {
      return {
        ok: false,
        message: `the input is nested deeper than ${MAX_INPUT_DEPTH} levels`,
        path: frame.path,
      };
    }
    const source = frame.source as Record<string, unknown>;
    const keys: (string | number)[] = Array.isArray(source)
      ? source.map((_, index) => index)
      : Object.keys(source);
    for (const key of keys) {
      if (key === "__proto__") {
        return { ok: false, message: `an own "__proto__" key is not accepted`, path: [...frame.path, key] };
      }
      const item = source[key];
      if (typeof item === "object" && item !== null) {
        const copy = empty(item);
        frame.target[key] = copy;
        stack.push({ source: item, target: copy, depth: frame.depth + 1, path: [...frame.path, key] });
      } else {
        frame.target[key] = item;
      }
    }
  }
  return { ok: true, value: result };
}

/**
 * The copy of an object none of whose members is an object or an array (the usual input), made in
 * one pass with no stack of frames; `undefined` for anything else, which the general copy takes.
 */
function copyFlatObject(source: object, nullPrototype: boolean): TreeCopy | undefined {
  if (Array.isArray(source)) return undefined;
  const copy: Record<string, unknown> = nullPrototype ? Object.create(NO_MEMBERS) : {};
  // for-in with hasOwn: the own enumerable string keys, in Object.keys order, without an array of them.
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const item = (source as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null) return undefined;
    if (key === "__proto__")
      return { ok: false, message: `an own "__proto__" key is not accepted`, path: [key] };
    copy[key] = item;
  }
  return { ok: true, value: copy };
}
