import { z } from "zod";
import { HIDDEN_KEY, isShowableKey } from "./credential-shape.js";

/** One problem found in a configuration, at a field path such as `mcpServers.docs.timeoutMs`. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** A field path as segments, as zod reports it. */
export type FieldPath = readonly (string | number)[];

/**
 * Formats a field path as `mcpServers.docs.args[0]`. A key that is not a plain name, or looks like a
 * credential, is shown as `[<key not shown>]`: a misplaced secret must not reach an error message.
 */
export function formatFieldPath(path: FieldPath): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (!isShowableKey(segment)) text += `[${HIDDEN_KEY}]`;
    else text += text === "" ? segment : `.${segment}`;
  }
  return text === "" ? "(the top level)" : text;
}

/**
 * Turns zod issues into config issues under `prefix`. An unknown key is reported with the keys
 * allowed at that place, read from `schema`, so a typo in a safety setting is easy to spot.
 */
export function issuesFromZod(error: z.ZodError, schema: z.ZodType, prefix: FieldPath = []): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map((key) => (typeof key === "symbol" ? String(key) : key))];
    if (issue.code === "unrecognized_keys") {
      const allowed = allowedKeysAt(schema, issue.path);
      const keys = issue.keys
        .map((key) => (isShowableKey(key) ? JSON.stringify(key) : HIDDEN_KEY))
        .join(", ");
      const noun = issue.keys.length === 1 ? "unknown key" : "unknown keys";
      const hint = allowed === undefined ? "" : `; allowed keys here: ${allowed.join(", ")}`;
      return { path: formatFieldPath(path), message: `${noun} ${keys}${hint}` };
    }
    return { path: formatFieldPath(path), message: describeIssue(issue) };
  });
}

/** Renders issues as an indented list, one per line. */
export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join("\n");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  // zod's own messages name expected and received types, never the value itself.
  if (issue.code === "invalid_key") return issue.issues.map((inner) => inner.message).join("; ");
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) {
    return `is required (expected ${issue.expected})`;
  }
  return issue.message.replace(/^Invalid input: /, "");
}

/** The keys of the object schema found by following `path` into `schema`, if it is one. */
function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let current: unknown = schema;
  for (const segment of [...path, undefined]) {
    current = unwrap(current);
    if (segment === undefined) break;
    if (current instanceof z.ZodObject) current = current.shape[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element;
    else if (current instanceof z.ZodRecord) current = current.valueType;
    else return undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : undefined;
}

function unwrap(schema: unknown): unknown {
  let current = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodDefault ||
    current instanceof z.ZodNullable
  ) {
    current = current.unwrap();
  }
  return current;
}
