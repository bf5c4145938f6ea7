import { describe, expect, it } from "vitest";
import { INVALID_TOOL_HEADER, toolHeaderProblem, withoutHeaderAnnotations } from "../src/tool-headers.js";

const annotated = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region", description: "where" },
    nested: {
      type: "object",
      properties: { depth: { type: "integer", "x-mcp-header": "Depth" } },
    },
    plain: { type: "boolean" },
  },
  required: ["region"],
};

describe("toolHeaderProblem", () => {
  it("finds nothing wrong with a schema without annotations, valid annotations, or no schema at all", () => {
    expect(toolHeaderProblem({ type: "object", properties: { q: { type: "string" } } })).toBeUndefined();
    expect(toolHeaderProblem(annotated)).toBeUndefined();
    expect(toolHeaderProblem(undefined)).toBeUndefined();
  });

  it("names an invalid annotation with the invalid_tool_header code: a wrong type, a repeated name", () => {
    const wrongType = { type: "object", properties: { tags: { type: "array", "x-mcp-header": "Tags" } } };
    expect(toolHeaderProblem(wrongType)).toMatch(
      new RegExp(
        `^${INVALID_TOOL_HEADER}: x-mcp-header of .*needs type string, integer or boolean, not array`,
      ),
    );
    const repeated = {
      type: "object",
      properties: {
        first: { type: "string", "x-mcp-header": "Region" },
        second: { type: "string", "x-mcp-header": "region" },
      },
    };
    expect(toolHeaderProblem(repeated)).toMatch(/^invalid_tool_header: .*repeats "Region".*ignore case/);
  });

  it("refuses an annotation the transport could not reach through properties alone", () => {
    const underItems = {
      type: "object",
      properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } },
    };
    expect(toolHeaderProblem(underItems)).toMatch(/^invalid_tool_header: /);
  });
});

describe("withoutHeaderAnnotations", () => {
  it("takes every annotation out of the parameters, at any depth of properties, and keeps the rest", () => {
    expect(withoutHeaderAnnotations(annotated)).toEqual({
      type: "object",
      properties: {
        region: { type: "string", description: "where" },
        nested: { type: "object", properties: { depth: { type: "integer" } } },
        plain: { type: "boolean" },
      },
      required: ["region"],
    });
  });

  it("leaves the schema it was given as the server sent it (the fingerprint is taken from that one)", () => {
    const sent = structuredClone(annotated);
    withoutHeaderAnnotations(sent);
    expect(sent).toEqual(annotated);
  });

  it("passes through what is not an object schema, and a schema without properties loses only its own annotation", () => {
    expect(withoutHeaderAnnotations(undefined)).toBeUndefined();
    expect(withoutHeaderAnnotations(true)).toBe(true);
    expect(withoutHeaderAnnotations({ type: "string", "x-mcp-header": "Solo" })).toEqual({ type: "string" });
  });
});
