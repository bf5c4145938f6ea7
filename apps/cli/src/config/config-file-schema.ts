import { policySchema } from "@agent/policy";
import { z } from "zod";
import { MODEL_CONFIG_SCHEMA } from "./model-config.js";
import { TIMEOUT_MS_SCHEMA } from "./server-config.js";
import { STATE_CONFIG_SCHEMA } from "./state-config.js";

/** The JSON form of a configuration file. */
export const CONFIG_FILE_SCHEMA = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  policy: policySchema.optional(),
  workspaceRoot: z.string().min(1, { message: "may not be empty" }).optional(),
  toolTimeoutMs: TIMEOUT_MS_SCHEMA.optional(),
  toolOutputMaxChars: z
    .number()
    .int()
    .min(200, { message: "must be at least 200 characters" })
    .max(100_000_000, { message: "must be at most 100000000 characters" })
    .optional(),
  protectedPaths: z.array(z.string().min(1, { message: "may not be empty" })).optional(),
  hostRunPaths: z.array(z.string().min(1, { message: "may not be empty" })).optional(),
  runCommand: z.strictObject({ allowShell: z.boolean().optional() }).optional(),
  model: MODEL_CONFIG_SCHEMA,
  state: STATE_CONFIG_SCHEMA,
});

/**
 * The keys a user-level configuration may set: what is shared across projects. The rest (the
 * workspace, protected paths, the state) describe one project and stay in its file.
 */
export const USER_CONFIG_KEYS = [
  "$schema",
  "mcpServers",
  "policy",
  "model",
  "toolTimeoutMs",
  "toolOutputMaxChars",
  "runCommand",
] as const;
