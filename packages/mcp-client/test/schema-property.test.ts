/**
 * The property that lets discovery check a remote schema and defer its conversion to first use: every
 * schema the checks accept converts, to a zod schema and back to the parameters defineTool shows. A zod
 * upgrade that breaks it fails here, instead of as a tool that was registered but cannot be used.
 */
import { defineTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import {
  type CheckedSchema,
  checkInputSchema,
  checkOutputSchema,
  convertInputSchema,
  zodFromCheckedSchema,
} from "../src/schema/index.js";
import { REFERENCE_TOOLS } from "./fixtures/reference-tools.js";
import { generateSchema } from "./fixtures/schema-generator.js";

const SCHEMAS = 3_000;

/** Why an accepted schema did not convert, or undefined when it did (or was rejected). */
function conversionProblem(checked: CheckedSchema): string | undefined {
  if (!checked.ok) return undefined;
  try {
    const schema = zodFromCheckedSchema(checked.schema);
    const tool = defineTool({ name: "t", description: "", schema, effect: "external", execute: () => null });
    void tool.fingerprint;
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  }
}

describe("what the checks accept converts", () => {
  // CPU-bound (~3 s alone, ~10 s beside other suites on two cores): a generous limit, not a hang guard.
  it(`holds for ${SCHEMAS} generated schemas, as input and as output schemas`, { timeout: 60_000 }, () => {
    const problems: string[] = [];
    let accepted = 0;
    for (let seed = 0; seed < SCHEMAS; seed += 1) {
      const schema = generateSchema(seed);
      for (const checked of [checkInputSchema(schema), checkOutputSchema(schema)]) {
        if (checked.ok) accepted += 1;
        const problem = conversionProblem(checked);
        if (problem) problems.push(`seed ${seed}: ${problem}: ${JSON.stringify(schema)}`);
      }
    }
    expect(problems).toEqual([]);
    // The generator must land on both sides of the checks, or the property proves little.
    expect(accepted).toBeGreaterThan(SCHEMAS / 2);
    expect(accepted).toBeLessThan(SCHEMAS * 1.8);
  });

  it("holds for the reference servers' tools, which convert as convertInputSchema converts them", () => {
    for (const tool of REFERENCE_TOOLS) {
      const checked = checkInputSchema(tool.inputSchema);
      expect(conversionProblem(checked)).toBeUndefined();
      expect(checked.ok).toBe(convertInputSchema(tool.inputSchema).ok);
    }
  });
});
