import { z } from "zod";
import { CARRIED_ANNOTATIONS } from "./keywords.js";

const CARRIER_PREFIX = "x-agent-annotation-";

/** The private name under which an annotation zod would act on travels through `fromJSONSchema`. */
export function carrierKey(keyword: string): string {
  return `${CARRIER_PREFIX}${keyword}`;
}

/**
 * A registry for `z.fromJSONSchema` that stores the metadata it collects in zod's global registry
 * (where `z.toJSONSchema`, and so `defineTool`, reads it) under the annotation's real name. zod files
 * unknown keywords as metadata, so a carried annotation reaches the model-visible schema without
 * zod ever checking or applying it.
 */
export class AnnotationRegistry extends z.core.$ZodRegistry<Record<string, unknown>> {
  override add<S extends z.core.$ZodType>(schema: S, ...meta: [Record<string, unknown>?]): this {
    const translated: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(meta[0] ?? {})) {
      const keyword = key.startsWith(CARRIER_PREFIX) ? key.slice(CARRIER_PREFIX.length) : key;
      translated[CARRIED_ANNOTATIONS.includes(keyword) ? keyword : key] = value;
    }
    z.globalRegistry.add(schema, translated);
    return this;
  }
}
