export type { SchemaIssue } from "./check-schema.js";
export {
  convertInputSchema,
  convertOutputSchema,
  formatSchemaIssue,
  type SchemaConversion,
  type SchemaConversionCode,
  UNSUPPORTED_INPUT_SCHEMA,
  UNSUPPORTED_OUTPUT_SCHEMA,
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
