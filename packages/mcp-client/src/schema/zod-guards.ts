/**
 * The keywords zod has no exact check for, as zod checks of our own. Each reproduces what Ajv does,
 * the differential tests prove it on generated inputs, and the converter shows each keyword to the
 * model through metadata next to the check that enforces it.
 */
import type { z } from "zod";
import { isRecord } from "../records.js";

/** The payload a zod check receives: the parsed value and the issues to add to. */
type Payload = z.core.ParsePayload<unknown>;

/** A zod check function, as `schema.check(...)` takes it. */
export type Guard = (payload: Payload) => void;

function fail(payload: Payload, message: string, path: (string | number)[] = []): void {
  payload.issues.push({ code: "custom", message, input: payload.value, path, continue: true });
}

/**
 * `pattern`: an unanchored search, with the linear-time matcher compiled at conversion. A string longer
 * than the matching budget allows for this pattern is refused without being matched.
 */
export function patternGuard(
  source: string,
  pattern: { test: (value: string) => boolean; maxLength: number },
): Guard {
  return (payload) => {
    if (typeof payload.value !== "string") return;
    if (payload.value.length > pattern.maxLength) {
      fail(
        payload,
        `is longer than ${pattern.maxLength} characters, the most the pattern ${JSON.stringify(source)} is checked on`,
      );
    } else if (!pattern.test(payload.value)) {
      fail(payload, `must match the pattern ${JSON.stringify(source)}`);
    }
  };
}

/**
 * `multipleOf`, computed as Ajv computes it (`value / divisor` must equal its `parseInt`), so the
 * float rounding of a decimal divisor is the same on both sides: 0.3 is not a multiple of 0.1 for
 * either, and neither is a quotient of 1e21 or more (its string form has an exponent).
 */
export function multipleOfGuard(divisor: number): Guard {
  return (payload) => {
    if (typeof payload.value !== "number") return;
    const quotient = payload.value / divisor;
    if (quotient !== Number.parseInt(String(quotient), 10)) fail(payload, `must be a multiple of ${divisor}`);
  };
}

/** The object keywords beyond zod's: property counts, key names and dependent requirements. */
export interface ObjectRules {
  minProperties?: number;
  maxProperties?: number;
  propertyName?: (name: string) => boolean;
  dependentRequired?: Record<string, string[]>;
}

/** `minProperties`, `maxProperties`, `propertyNames` and `dependentRequired`, over own keys only. */
export function objectGuard(rules: ObjectRules): Guard {
  return (payload) => {
    const value = payload.value;
    if (!isRecord(value)) return;
    const keys = Object.keys(value);
    if (rules.minProperties !== undefined && keys.length < rules.minProperties) {
      fail(payload, `must have at least ${rules.minProperties} properties`);
    }
    if (rules.maxProperties !== undefined && keys.length > rules.maxProperties) {
      fail(payload, `must have at most ${rules.maxProperties} properties`);
    }
    if (rules.propertyName) {
      for (const key of keys) {
        if (!rules.propertyName(key))
          fail(payload, `property name ${JSON.stringify(key)} is not allowed`, [key]);
      }
    }
    for (const [name, needed] of Object.entries(rules.dependentRequired ?? {})) {
      if (!Object.hasOwn(value, name)) continue;
      for (const other of needed) {
        if (!Object.hasOwn(value, other)) fail(payload, `"${other}" is required when "${name}" is present`);
      }
    }
  };
}

/** The array keywords beyond zod's: `uniqueItems` and `contains` with its bounds. */
export interface ArrayRules {
  uniqueItems: boolean;
  contains?: (item: unknown) => boolean;
  minContains?: number;
  maxContains?: number;
}

/** `uniqueItems` (JSON equality: own keys, numbers by value) and `contains`/`minContains`/`maxContains`. */
export function arrayGuard(rules: ArrayRules): Guard {
  return (payload) => {
    const items = payload.value;
    if (!Array.isArray(items)) return;
    if (rules.uniqueItems) {
      const seen = new Map<string, number>();
      items.forEach((item, index) => {
        const key = canonicalKey(item);
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else fail(payload, `must not repeat items: item ${index} equals item ${first}`, [index]);
      });
    }
    if (rules.contains) {
      const matches = items.filter(rules.contains).length;
      const minimum = rules.minContains ?? 1;
      if (matches < minimum)
        fail(payload, `must contain at least ${minimum} matching items, found ${matches}`);
      if (rules.maxContains !== undefined && matches > rules.maxContains) {
        fail(payload, `must contain at most ${rules.maxContains} matching items, found ${matches}`);
      }
    }
  };
}

/** `allOf` beside the rest of a schema: each branch validates the same value on its own. */
export function allOfGuard(branches: readonly ((value: unknown) => boolean)[]): Guard {
  return (payload) => {
    branches.forEach((branch, index) => {
      if (!branch(payload.value)) fail(payload, `must match "allOf" branch ${index}`);
    });
  };
}

/** `if`/`then`/`else`: a value `test` accepts must pass `then`, any other `otherwise`; an absent branch passes all. */
export function conditionalGuard(
  test: (value: unknown) => boolean,
  then: ((value: unknown) => boolean) | undefined,
  otherwise: ((value: unknown) => boolean) | undefined,
): Guard {
  return (payload) => {
    const matched = test(payload.value);
    const branch = matched ? then : otherwise;
    if (branch && !branch(payload.value)) {
      fail(
        payload,
        `must match "${matched ? "then" : "else"}", as it ${matched ? "matches" : "does not match"} "if"`,
      );
    }
  };
}

/** `required` naming properties the schema's own shape does not declare: each must be an own key of an object. */
export function requiredGuard(names: readonly string[]): Guard {
  return (payload) => {
    const value = payload.value;
    if (!isRecord(value)) return;
    for (const name of names) {
      if (!Object.hasOwn(value, name)) fail(payload, `must have the property "${name}"`);
    }
  };
}

/**
 * A string that two JSON values share exactly when JSON Schema calls them equal: object keys sorted,
 * numbers by value (so 0 and -0 are one), strings quoted. The input's depth is bounded before any
 * check runs, so the recursion is too.
 */
function canonicalKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalKey(value[key])}`).join(",")}}`;
  }
  if (typeof value === "number") return Object.is(value, -0) ? "0" : String(value);
  return JSON.stringify(value) ?? "undefined";
}
