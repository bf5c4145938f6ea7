export type { SchemaIssue } from "./check-schema.js";
export {
  type CheckedSchema,
  checkInputSchema,
  checkOutputSchema,
  convertInputSchema,
  convertOutputSchema,
  convertOutputSchemaToZod,
  formatSchemaIssue,
  type SchemaConversion,
  type SchemaConversionCode,
  type SchemaConversionFailure,
  UNSUPPORTED_INPUT_SCHEMA,
  UNSUPPORTED_OUTPUT_SCHEMA,
  zodFromCheckedSchema,
} from "./convert-schema.js";
export { type CompiledPattern, compilePattern, MAX_PATTERN_LENGTH } from "./ecma-pattern.js";
export { MAX_INPUT_DEPTH } from "./own-input.js";
export { originalParameters } from "./shown-schema.js";
