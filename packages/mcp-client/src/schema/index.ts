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
export {
  ANNOTATION_KEYWORDS,
  type AnnotationValue,
  CARRIED_ANNOTATIONS,
  GENERAL_KEYWORDS,
  JSON_TYPES,
  type JsonType,
  TYPED_KEYWORDS,
} from "./keywords.js";
