import { describeValue, isRecord } from "./records.js";

/** A value a form field can hold: what `elicitation/create` allows in an answer. */
export type ElicitationValue = string | number | boolean | string[];

/** One choice of an enum field: the value sent, and the label shown (the server's `title`, else the value). */
export interface ElicitationOption {
  value: string;
  label: string;
}

/** One field of a requested form, normalized from the server's restricted JSON Schema. */
export interface ElicitationField {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "enum" | "multi_enum";
  required: boolean;
  title: string | undefined;
  description: string | undefined;
  /** The server's default (SEP-1034), applied when the answer leaves the field out. */
  default: ElicitationValue | undefined;
  /** Choices of `enum` and `multi_enum` fields. */
  options: ElicitationOption[];
  minLength?: number;
  maxLength?: number;
  format?: "email" | "uri" | "date" | "date-time";
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** A parsed form request: its fields, or why the schema is not one a form can ask for. */
export type ParsedElicitationSchema =
  | { ok: true; fields: ElicitationField[] }
  | { ok: false; reason: string };

const ANNOTATIONS: ReadonlySet<string> = new Set(["title", "description", "$comment", "$schema"]);
const FORMATS: ReadonlySet<string> = new Set(["email", "uri", "date", "date-time"]);

/**
 * Reads `requestedSchema` of an `elicitation/create` request: an object of flat primitive fields
 * (string, number, integer, boolean, single- and multi-select enums), as the specification restricts
 * it. Anything else (nesting, an unknown keyword, a default of the wrong type) makes the whole
 * request invalid: the client validates every answer, so it accepts only what it can validate.
 */
export function parseElicitationSchema(schema: unknown): ParsedElicitationSchema {
  if (!isRecord(schema) || schema.type !== "object") {
    return { ok: false, reason: `requestedSchema must be an object schema, got ${describeValue(schema)}` };
  }
  const properties = schema.properties ?? {};
  if (!isRecord(properties)) return { ok: false, reason: "requestedSchema.properties must be an object" };
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    return { ok: false, reason: "requestedSchema.required must be an array of names" };
  }
  for (const key of Object.keys(schema)) {
    if (!["type", "properties", "required", ...ANNOTATIONS].includes(key)) {
      return { ok: false, reason: `requestedSchema has the unsupported keyword "${key}"` };
    }
  }
  const fields: ElicitationField[] = [];
  for (const [name, definition] of Object.entries(properties)) {
    const field = readField(name, definition, required.includes(name));
    if (typeof field === "string") return { ok: false, reason: `field "${name}": ${field}` };
    fields.push(field);
  }
  const unknown = required.find((name) => !(name in properties));
  if (unknown !== undefined) return { ok: false, reason: `required field "${unknown}" is not defined` };
  return { ok: true, fields };
}

function readField(name: string, definition: unknown, required: boolean): ElicitationField | string {
  if (!isRecord(definition)) return `the definition is ${describeValue(definition)}, not an object`;
  const field: ElicitationField = {
    name,
    kind: "string",
    required,
    title: typeof definition.title === "string" ? definition.title : undefined,
    description: typeof definition.description === "string" ? definition.description : undefined,
    default: undefined,
    options: [],
  };
  const allowed = new Set(ANNOTATIONS);
  allowed.add("type");
  allowed.add("default");
  const { type } = definition;
  if (type === "string" && (definition.enum !== undefined || definition.oneOf !== undefined)) {
    field.kind = "enum";
    const options = readOptions(definition);
    if (typeof options === "string") return options;
    field.options = options;
    for (const key of ["enum", "enumNames", "oneOf"]) allowed.add(key);
  } else if (type === "string") {
    for (const key of ["minLength", "maxLength", "format"]) allowed.add(key);
    const problem = readLimits(definition, field, ["minLength", "maxLength"]);
    if (problem) return problem;
    if (definition.format !== undefined) {
      if (typeof definition.format !== "string" || !FORMATS.has(definition.format)) {
        return `format ${describeValue(definition.format)} is not one of email, uri, date, date-time`;
      }
      field.format = definition.format as NonNullable<ElicitationField["format"]>;
    }
  } else if (type === "number" || type === "integer") {
    field.kind = type;
    for (const key of ["minimum", "maximum"]) allowed.add(key);
    const problem = readLimits(definition, field, ["minimum", "maximum"]);
    if (problem) return problem;
  } else if (type === "boolean") {
    field.kind = "boolean";
  } else if (type === "array") {
    field.kind = "multi_enum";
    for (const key of ["items", "minItems", "maxItems"]) allowed.add(key);
    const problem = readLimits(definition, field, ["minItems", "maxItems"]);
    if (problem) return problem;
    const items = definition.items;
    if (!isRecord(items)) return "a multi-select needs items";
    const options = readOptions(items.anyOf === undefined ? items : { oneOf: items.anyOf, ...items });
    if (typeof options === "string") return options;
    field.options = options;
  } else {
    return `type ${describeValue(type)} is not a form field type`;
  }
  const extra = Object.keys(definition).find((key) => !allowed.has(key));
  if (extra !== undefined) return `the keyword "${extra}" is not supported in a form field`;
  if (definition.default !== undefined) {
    const issue = fieldValueProblem(field, definition.default);
    if (issue) return `its default is invalid: ${issue}`;
    field.default = definition.default as ElicitationValue;
  }
  return field;
}

function readOptions(definition: Record<string, unknown>): ElicitationOption[] | string {
  if (Array.isArray(definition.oneOf)) {
    const options: ElicitationOption[] = [];
    for (const choice of definition.oneOf) {
      if (!isRecord(choice) || typeof choice.const !== "string") return "every choice needs a string const";
      options.push({
        value: choice.const,
        label: typeof choice.title === "string" ? choice.title : choice.const,
      });
    }
    return options.length > 0 ? options : "an enum needs at least one choice";
  }
  const values = definition.enum;
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === "string")) {
    return "enum must be a non-empty array of strings";
  }
  const names = Array.isArray(definition.enumNames) ? definition.enumNames : [];
  return values.map((value, index) => {
    const label = names[index];
    return { value, label: typeof label === "string" ? label : value };
  });
}

function readLimits(
  definition: Record<string, unknown>,
  field: ElicitationField,
  keys: ("minLength" | "maxLength" | "minimum" | "maximum" | "minItems" | "maxItems")[],
): string | undefined {
  for (const key of keys) {
    const value = definition[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) return `${key} must be a number`;
    field[key] = value;
  }
  return undefined;
}

/** Why `value` does not fit `field`, or undefined when it does. */
export function fieldValueProblem(field: ElicitationField, value: unknown): string | undefined {
  switch (field.kind) {
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected true or false";
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "expected a whole number";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "enum":
      return typeof value === "string" && field.options.some((option) => option.value === value)
        ? undefined
        : `expected one of ${field.options.map((option) => option.value).join(", ")}`;
    case "multi_enum": {
      if (!Array.isArray(value)) return "expected a list of choices";
      const bad = value.find((item) => !field.options.some((option) => option.value === item));
      if (bad !== undefined) return `${describeValue(bad)} is not one of the choices`;
      if (new Set(value).size !== value.length) return "a choice may be picked once";
      if (field.minItems !== undefined && value.length < field.minItems)
        return `pick at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `pick at most ${field.maxItems}`;
      return undefined;
    }
    case "string":
      return stringProblem(field, value);
  }
}

function stringProblem(field: ElicitationField, value: unknown): string | undefined {
  if (typeof value !== "string") return "expected text";
  const length = [...value].length;
  if (field.minLength !== undefined && length < field.minLength)
    return `must be at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && length > field.maxLength)
    return `must be at most ${field.maxLength} characters`;
  if (field.format === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value))
    return "expected an email address";
  if (field.format === "uri" && !URL.canParse(value)) return "expected an absolute URI";
  if (field.format === "date" && !isDate(value)) return "expected a date (YYYY-MM-DD)";
  if (field.format === "date-time" && !isDateTime(value)) {
    return "expected a date and time (YYYY-MM-DDTHH:MM:SSZ)";
  }
  return undefined;
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function isDateTime(value: string): boolean {
  const match = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.exec(value);
  return match !== null && isDate(match[1] ?? "") && !Number.isNaN(Date.parse(value));
}

/** The outcome of {@link completeElicitationAnswer}: the content to send, or the problems, by field. */
export type CompletedAnswer =
  | { ok: true; content: Record<string, ElicitationValue> }
  | { ok: false; issues: { field: string; message: string }[] };

/**
 * Fills the fields an accepted answer leaves out with the server's defaults (SEP-1034), then checks
 * every field against the requested schema: what is sent always satisfies it. Unknown fields are
 * issues too, so nothing the form did not ask for reaches the server.
 */
export function completeElicitationAnswer(
  fields: readonly ElicitationField[],
  content: Readonly<Record<string, unknown>>,
): CompletedAnswer {
  const issues: { field: string; message: string }[] = [];
  const completed: Record<string, ElicitationValue> = {};
  for (const name of Object.keys(content)) {
    if (!fields.some((field) => field.name === name)) issues.push({ field: name, message: "not asked for" });
  }
  for (const field of fields) {
    const value = content[field.name] ?? field.default;
    if (value === undefined) {
      if (field.required) issues.push({ field: field.name, message: "is required" });
      continue;
    }
    const problem = fieldValueProblem(field, value);
    if (problem) issues.push({ field: field.name, message: problem });
    else completed[field.name] = value as ElicitationValue;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, content: completed };
}

const SENSITIVE =
  /\bpass(word|phrase|code)?\b|passwd|secret|token|api[\s_-]?key|credential|private[\s_-]?key|\bpin\b|\bssn\b|social security|credit[\s_-]?card|card[\s_-]?number|\bcvv\b|\botp\b/i;

/**
 * Whether a form seems to ask for a secret (a password, token, API key, card number, ...). The
 * specification forbids servers to ask for those in form mode; the client warns rather than guesses.
 */
export function looksSensitive(message: string, fields: readonly ElicitationField[]): boolean {
  return [
    message,
    ...fields.flatMap((field) => [field.name, field.title ?? "", field.description ?? ""]),
  ].some((text) => SENSITIVE.test(text));
}
