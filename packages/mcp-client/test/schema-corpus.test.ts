/**
 * The schemas real servers send: every tool of 22 popular MCP servers from npm, captured with their
 * versions (test/fixtures/corpus, scripts/capture-corpus.mjs), goes through discovery's mapping. At
 * least 99% are accepted; every rejection is listed with its reason; and no accepted tool shows the
 * model a keyword the local validator does not enforce, other than the documented annotations, nor
 * disagrees with Ajv on generated inputs.
 */
import { toLocalTool } from "@agent/mcp-client";
import {
  ANNOTATION_KEYWORDS,
  GENERAL_KEYWORDS,
  type JsonValue,
  type RegisteredTool,
  TYPED_KEYWORDS,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import { convertInputSchema } from "../src/schema/index.js";
import { loadCorpus } from "./fixtures/corpus-tools.js";
import { mismatches, NO_MISMATCHES, runDifferential } from "./fixtures/differential.js";
import { generateInputs } from "./fixtures/json-generator.js";
import { createReferenceCompiler } from "./fixtures/reference-validator.js";
import { EMPTY_ANSWERS } from "./harness.js";

const corpus = loadCorpus();

const INPUTS_PER_TOOL = 100;

interface Mapped {
  label: string;
  inputSchema: unknown;
  tool: RegisteredTool;
}

const accepted: Mapped[] = [];
const rejected: string[] = [];
for (const listing of corpus) {
  for (const remote of listing.tools) {
    const label = `${listing.server}@${listing.version}/${remote.name}`;
    const mapped = toLocalTool(
      {
        server: "s",
        remoteName: remote.name,
        description: remote.description ?? "",
        inputSchema: remote.inputSchema as Record<string, unknown>,
        outputSchema: remote.outputSchema as Record<string, unknown> | undefined,
        annotations: remote.annotations as Record<string, JsonValue> | undefined,
        title: remote.title,
      },
      EMPTY_ANSWERS,
    );
    if (mapped.ok) accepted.push({ label, inputSchema: remote.inputSchema, tool: mapped.tool });
    else rejected.push(`${label}: ${mapped.reason}`);
  }
}
const total = accepted.length + rejected.length;

/** Keywords the local validator enforces, by zod or by the converter's own checks. */
const ENFORCED = new Set([...Object.keys(TYPED_KEYWORDS), ...GENERAL_KEYWORDS]);

/** Where a JSON Schema holds subschemas, so the walk below visits schemas and never data. */
const SUBSCHEMA = ["items", "additionalProperties", "contains", "propertyNames"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/** Every keyword of a schema that is neither enforced nor a documented annotation, by pointer. */
function unenforcedKeywords(schema: unknown, pointer = "#"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  for (const [keyword, value] of Object.entries(node)) {
    if (!ENFORCED.has(keyword) && !Object.hasOwn(ANNOTATION_KEYWORDS, keyword))
      found.push(`${pointer}: ${keyword}`);
    if (keyword === "properties" && typeof value === "object" && value !== null) {
      for (const [name, subschema] of Object.entries(value)) {
        found.push(...unenforcedKeywords(subschema, `${pointer}/properties/${name}`));
      }
    }
    if (SUBSCHEMA.includes(keyword)) found.push(...unenforcedKeywords(value, `${pointer}/${keyword}`));
    if (SUBSCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
      value.forEach((subschema, index) => {
        found.push(...unenforcedKeywords(subschema, `${pointer}/${keyword}/${index}`));
      });
    }
  }
  return found;
}

describe("the corpus of real servers' tool listings", () => {
  it("holds the captured servers, each with its version", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    for (const listing of corpus) expect(listing.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(total).toBeGreaterThan(400);
  });

  it("has at least 99% of its tools accepted", () => {
    expect(accepted.length / total).toBeGreaterThanOrEqual(0.99);
  });

  it("lists every rejection with its reason", () => {
    expect(rejected).toMatchSnapshot();
  });

  it("shows the model no keyword that is not enforced, beyond the documented annotations", () => {
    const problems = accepted.flatMap(({ label, tool }) => {
      const strict = tool.strictParameters;
      return [
        ...unenforcedKeywords(tool.parameters).map((found) => `${label} parameters ${found}`),
        ...(strict.compatible
          ? unenforcedKeywords(strict.parameters).map((found) => `${label} strict ${found}`)
          : []),
      ];
    });
    expect(problems).toEqual([]);
  });

  // CPU-bound: ~400 tools, each compiled twice by Ajv. A generous limit, not a hang guard.
  it("agrees with Ajv on generated inputs for every accepted tool", { timeout: 120_000 }, () => {
    const problems: string[] = [];
    const compile = createReferenceCompiler();
    accepted.forEach(({ label, inputSchema, tool }, index) => {
      // The conversion the tool makes on first use; prepare adds only the strict-mode null mapping.
      const conversion = convertInputSchema(inputSchema);
      if (!conversion.ok) throw new Error(`${label}: ${conversion.reason}`);
      expect(conversion.parameters).toEqual(tool.parameters);
      const inputs = generateInputs(inputSchema, INPUTS_PER_TOOL, 90_000 + index);
      const report = runDifferential(inputSchema, conversion.schema, conversion.parameters, inputs, {
        compile,
      });
      const found = mismatches(report);
      if (JSON.stringify(found) !== JSON.stringify(NO_MISMATCHES))
        problems.push(`${label}: ${JSON.stringify(found)}`);
    });
    expect(problems).toEqual([]);
  });
});
