import { describe, expect, it } from "vitest";
import {
  completeElicitationAnswer,
  type ElicitationField,
  fieldValueProblem,
  looksSensitive,
  parseElicitationSchema,
} from "../src/elicitation-schema.js";

function fieldsOf(schema: unknown): ElicitationField[] {
  const parsed = parseElicitationSchema(schema);
  if (!parsed.ok) throw new Error(`expected a form, got: ${parsed.reason}`);
  return parsed.fields;
}

function fieldNamed(schema: unknown, name: string): ElicitationField {
  const field = fieldsOf(schema).find((candidate) => candidate.name === name);
  if (!field) throw new Error(`the form has no field ${name}`);
  return field;
}

const FORM = {
  type: "object",
  title: "Booking",
  properties: {
    name: { type: "string", title: "Your name", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    guests: { type: "integer", minimum: 1, maximum: 4, default: 2 },
    vegan: { type: "boolean" },
    room: { type: "string", oneOf: [{ const: "s", title: "Single" }, { const: "d" }] },
    size: { type: "string", enum: ["S", "M"], enumNames: ["Small"] },
    extras: { type: "array", items: { type: "string", enum: ["tea", "cake"] }, maxItems: 1 },
  },
  required: ["name", "room"],
};

describe("parseElicitationSchema", () => {
  it("reads each kind of form field with its labels, limits and default", () => {
    const fields = fieldsOf(FORM);
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ["name", "string", true],
      ["email", "string", false],
      ["guests", "integer", false],
      ["vegan", "boolean", false],
      ["room", "enum", true],
      ["size", "enum", false],
      ["extras", "multi_enum", false],
    ]);
    expect(fields[0]).toMatchObject({ title: "Your name", minLength: 2, maxLength: 5 });
    expect(fields[2]).toMatchObject({ default: 2, minimum: 1, maximum: 4 });
    expect(fields[4]?.options).toEqual([
      { value: "s", label: "Single" },
      { value: "d", label: "d" },
    ]);
    expect(fields[5]?.options).toEqual([
      { value: "S", label: "Small" },
      { value: "M", label: "M" },
    ]);
    expect(fields[6]).toMatchObject({ maxItems: 1, options: [{ value: "tea" }, { value: "cake" }] });
  });

  it("refuses what a flat form cannot ask for, saying where", () => {
    const refusals: [unknown, RegExp][] = [
      [{ type: "array" }, /must be an object schema/],
      [{ type: "object", additionalProperties: false }, /unsupported keyword "additionalProperties"/],
      [{ type: "object", properties: { a: { type: "object" } } }, /field "a": type "object"/],
      [{ type: "object", properties: { a: { type: "string", pattern: "x" } } }, /"pattern" is not supported/],
      [{ type: "object", properties: { a: { type: "string", format: "ipv4" } } }, /format/],
      [{ type: "object", properties: { a: { type: "integer", default: 1.5 } } }, /default is invalid/],
      [{ type: "object", properties: { a: { type: "string", enum: [] } } }, /non-empty array/],
      [{ type: "object", required: ["missing"] }, /required field "missing" is not defined/],
      [{ type: "object", required: "a" }, /array of names/],
    ];
    for (const [schema, reason] of refusals) {
      const parsed = parseElicitationSchema(schema);
      expect(parsed.ok, JSON.stringify(schema)).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toMatch(reason);
    }
  });
});

describe("fieldValueProblem", () => {
  const name = fieldNamed(FORM, "name");
  const email = fieldNamed(FORM, "email");
  const guests = fieldNamed(FORM, "guests");
  const room = fieldNamed(FORM, "room");
  const extras = fieldNamed(FORM, "extras");

  it("holds every answer to its field's type and limits", () => {
    expect(fieldValueProblem(name, "Ana")).toBeUndefined();
    expect(fieldValueProblem(name, "A")).toMatch(/at least 2/);
    // Length counts characters, not UTF-16 units.
    expect(fieldValueProblem(name, "😀😀😀😀😀")).toBeUndefined();
    expect(fieldValueProblem(email, "not-an-address")).toMatch(/email/);
    expect(fieldValueProblem(guests, 2.5)).toMatch(/whole number/);
    expect(fieldValueProblem(guests, 5)).toMatch(/at most 4/);
    expect(fieldValueProblem(room, "x")).toMatch(/one of s, d/);
    expect(fieldValueProblem(extras, ["tea", "cake"])).toMatch(/at most 1/);
    expect(fieldValueProblem(extras, ["tea", "tea"])).toMatch(/once/);
  });

  it("checks dates as calendar dates", () => {
    const schema = {
      type: "object",
      properties: { d: { type: "string", format: "date" }, t: { type: "string", format: "date-time" } },
    };
    const [date, dateTime] = [fieldNamed(schema, "d"), fieldNamed(schema, "t")];
    expect(fieldValueProblem(date, "2024-02-29")).toBeUndefined();
    expect(fieldValueProblem(date, "2023-02-29")).toMatch(/date/);
    expect(fieldValueProblem(dateTime, "2024-02-29T12:00:00Z")).toBeUndefined();
    expect(fieldValueProblem(dateTime, "2024-02-29 12:00")).toMatch(/date and time/);
  });
});

describe("completeElicitationAnswer", () => {
  const fields = fieldsOf(FORM);

  it("fills left-out fields with the server's defaults, so what is sent satisfies the schema", () => {
    expect(completeElicitationAnswer(fields, { name: "Ana", room: "d" })).toEqual({
      ok: true,
      content: { name: "Ana", guests: 2, room: "d" },
    });
  });

  it("lists every problem by field: missing required fields, bad values, fields not asked for", () => {
    expect(completeElicitationAnswer(fields, { name: "A", sneaky: "x" })).toEqual({
      ok: false,
      issues: [
        { field: "sneaky", message: "not asked for" },
        { field: "name", message: "must be at least 2 characters" },
        { field: "room", message: "is required" },
      ],
    });
  });
});

describe("looksSensitive", () => {
  it("flags a form that seems to ask for a secret, in its message or its fields", () => {
    expect(looksSensitive("Enter your API key", [])).toBe(true);
    expect(
      looksSensitive("Sign in", fieldsOf({ type: "object", properties: { password: { type: "string" } } })),
    ).toBe(true);
    expect(looksSensitive("Pick a room", fieldsOf(FORM))).toBe(false);
    // A word that only contains "pin" is not a PIN.
    expect(looksSensitive("Choose a spinner", [])).toBe(false);
  });
});
