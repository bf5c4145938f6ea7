import { messageOf } from "@agent/base";
import { type ZodType, z } from "zod";
import type { CallRequestRecord } from "./agent-event.js";
import type { CancellationSignal } from "./call-cancellation.js";
import { digestJson, type JsonObject, type JsonValue } from "./canonical-json.js";
import { TOOLS_ERROR_CODES, ToolsError } from "./errors.js";
import type { FlowSource } from "./flow.js";
import { exceedsJsonDepth, MAX_INPUT_DEPTH } from "./json-depth.js";
import { removeStrictNulls, type StrictParameters, toStrictParameters } from "./strict-parameters.js";

/** What a tool may do to the world; it decides the default policy, and nothing may lower it. */
export type ToolEffect = "read" | "write" | "external";

/** The effects, in the order of the harm they can do. */
export const TOOL_EFFECTS: readonly ToolEffect[] = ["read", "write", "external"];

/** One step of a long operation, as a tool reports it. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a running tool receives besides its input. */
export interface ToolContext {
  /** Aborted on timeout or cancellation; a tool passes it to everything it waits on. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation as `signal`, for a tool that only forwards it (a remote call): reading
   * this one instead creates no `AbortSignal`, which saves the executor microseconds per call.
   * Set by `executeToolCall`; a hand-made context may leave it out, so fall back to `signal`.
   */
  readonly cancellation?: CancellationSignal;
  readonly callId: string;
  readonly runId: string;
  readonly cwd: string;
  /** Reports progress of a long operation, if the caller listens. */
  readonly reportProgress: (progress: ToolProgress) => void;
  /**
   * `false` when nobody listens to progress, so a tool need not ask for it (a remote tool then
   * sends no progress token); absent means someone may listen.
   */
  readonly progressListened?: boolean;
  /**
   * The untrusted sources the call's run had taken in (see `FlowSource`); absent or empty for a
   * clean run. A tool that writes files marks them tainted when it is set.
   */
  readonly taint?: readonly FlowSource[] | undefined;
  /**
   * Hands the call's MCP request to the executor, which records it in the call's outcome record
   * (`tool_call_finished.request`) instead of a record of its own. Returns false when nobody will
   * (no audit sink, the outcome already recorded after a timeout, a hand-made context): the caller
   * then records the request itself (`mcp_request_finished`).
   */
  recordRequest?(request: CallRequestRecord): boolean;
  /**
   * Saves what this call needs to be resumed after its process is gone (e.g. the id of a remote
   * task it started), with the run, before the tool goes on: the caller waits for the promise.
   * Absent when nobody saves it (a one-off call).
   */
  checkpoint?(state: JsonValue): Promise<void> | void;
  /**
   * Set when this call is a resumption: the state it saved with `checkpoint` before its process
   * stopped. The tool continues from it (e.g. follows the same task) and must not start the action
   * again. Only a `resumable` tool is ever given one.
   */
  readonly resume?: JsonValue;
}

/** A problem found while validating a tool's input. */
export interface ValidationIssue {
  /** JSON path to the offending value, e.g. `["items", 0, "name"]`; empty for the input itself. */
  path: (string | number)[];
  message: string;
}

/** The outcome of {@link RegisteredTool.prepare}: a validated call ready to run, or the issues found. */
export type PrepareResult<Input> =
  | { ok: true; input: Input; execute(context: ToolContext): Promise<unknown> }
  | { ok: false; issues: ValidationIssue[] };

/** What a tool author writes; see {@link defineTool}. */
export interface ToolDefinition<Input> {
  /** The model-visible name: `[a-zA-Z0-9_-]`, at most 64 characters. */
  name: string;
  description: string;
  /**
   * Validates input and produces the model-visible parameters: one source for both. A function
   * returning the schema defers building it (and the parameters and fingerprint) to first use; see
   * {@link defineTool}.
   */
  schema: ZodType<Input> | (() => ZodType<Input>);
  effect: ToolEffect;
  execute(input: Input, context: ToolContext): unknown;
  /** Hints from the tool's author that nobody verified; they may feed summaries, never decisions. */
  annotations?: Readonly<Record<string, JsonValue>>;
  /** The registry group the tool belongs to (e.g. one MCP server's tools), replaced as a unit. */
  group?: string;
  /** Anything else that identifies this definition; it is part of the fingerprint. */
  identity?: JsonValue;
  /**
   * The JSON Schema the model is shown instead of the one generated from `schema`, built on first
   * use like a deferred schema: for a schema written elsewhere (an MCP server's) whose validator was
   * built to mean exactly it, where the generated form would lose keywords (`$defs`, `if`, …). It must
   * describe an object; it takes the generated parameters' place everywhere, the fingerprint included.
   */
  parameters?: () => JsonObject;
  /** Whether `execute` honours `ToolContext.resume` (continues a checkpointed call instead of acting again). */
  resumable?: boolean;
}

/** A tool as the registry, the policy and the executor see it. */
export interface RegisteredTool<Input = unknown> {
  readonly name: string;
  readonly description: string;
  readonly effect: ToolEffect;
  /** JSON Schema of the input, generated from the validating schema (no `$schema`). */
  readonly parameters: JsonObject;
  /** The strict function-calling variant of {@link parameters}, or why there is none. */
  readonly strictParameters: StrictParameters;
  readonly annotations: Readonly<Record<string, JsonValue>> | undefined;
  readonly group: string | undefined;
  /** Whether a checkpointed call of it can be resumed (see `ToolContext.resume`); unset: it cannot. */
  readonly resumable?: boolean;
  /** sha256 over the whole definition: any change to it yields a new fingerprint. */
  readonly fingerprint: string;
  /** Validates raw input without side effects; `execute` runs only what was validated. */
  prepare(rawInput: unknown): PrepareResult<Input>;
}

/** Model APIs cap function names at this many characters. */
export const MAX_TOOL_NAME_LENGTH = 64;

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/**
 * Turns a definition into a registered tool whose parameters and validator share one zod schema.
 * A schema given as a value is converted at once, and so is the fingerprint: a bad definition throws
 * `invalid_tool_definition` here, and the tool is plain data. A schema given as a function is built on
 * first use of `prepare`, `parameters`, `strictParameters` or `fingerprint`, once (those three are
 * then getters of the tool's class); the caller vouches that it works (as the MCP client does after
 * checking a remote schema) and that the definition's values do not change meanwhile. Should it throw
 * all the same, those properties throw `invalid_tool_definition` and `prepare` rejects every input:
 * nothing runs unvalidated.
 */
export function defineTool<Input>(definition: ToolDefinition<Input>): RegisteredTool<Input> {
  assertDefinition(definition);
  const tool = new DeferredTool(definition);
  if (typeof definition.schema === "function") return tool;
  const { name, description, effect, parameters, strictParameters, annotations, group, fingerprint } = tool;
  return {
    name,
    description,
    effect,
    parameters,
    strictParameters,
    annotations,
    group,
    fingerprint,
    prepare: tool.prepare,
    ...(definition.resumable ? { resumable: true } : {}),
  };
}

type Converted<Input> = { schema: ZodType<Input>; parameters: JsonObject };

/**
 * A registered tool that converts its schema on first use. A class, because an object literal with
 * getters costs some 2 µs to create against 0.1 µs for an instance: a lot when a server lists
 * thousands of tools.
 */
class DeferredTool<Input> implements RegisteredTool<Input> {
  readonly name: string;
  readonly description: string;
  readonly effect: ToolEffect;
  readonly annotations: Readonly<Record<string, JsonValue>> | undefined;
  readonly group: string | undefined;
  readonly resumable?: boolean;
  readonly #definition: ToolDefinition<Input>;
  readonly #convert = memoize((): Converted<Input> => {
    const { schema, name } = this.#definition;
    const built = typeof schema === "function" ? buildSchema(schema, name) : schema;
    const shown = this.#definition.parameters;
    return { schema: built, parameters: shown ? givenParameters(shown, name) : toParameters(built, name) };
  });
  readonly #strictParameters = memoize(() => toStrictParameters(this.parameters));
  readonly #fingerprint = memoize(() =>
    digestJson({
      name: this.name,
      description: this.description,
      effect: this.effect,
      parameters: this.parameters,
      annotations: this.annotations ?? null,
      identity: this.#definition.identity ?? null,
    }),
  );

  constructor(definition: ToolDefinition<Input>) {
    this.name = definition.name;
    this.description = definition.description;
    this.effect = definition.effect;
    this.annotations = definition.annotations;
    this.group = definition.group;
    if (definition.resumable) this.resumable = true;
    this.#definition = definition;
  }

  get parameters(): JsonObject {
    return this.#convert().parameters;
  }

  get strictParameters(): StrictParameters {
    return this.#strictParameters();
  }

  get fingerprint(): string {
    return this.#fingerprint();
  }

  /** An arrow, so that it works detached from the tool, as the plain-data tools' `prepare` does. */
  readonly prepare = (rawInput: unknown): PrepareResult<Input> => {
    // Before anything recursive (null removal, the validator) walks the input.
    if (exceedsJsonDepth(rawInput)) {
      const message = `the input is nested more than ${MAX_INPUT_DEPTH} levels deep`;
      return { ok: false, issues: [{ path: [], message }] };
    }
    let converted: Converted<Input>;
    try {
      converted = this.#convert();
    } catch (error) {
      return { ok: false, issues: [{ path: [], message: describeFailure(error) }] };
    }
    const parsed = converted.schema.safeParse(removeStrictNulls(converted.parameters, rawInput));
    if (!parsed.success) {
      return {
        ok: false,
        issues: parsed.error.issues.map((issue) => ({
          path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)),
          message: issue.message,
        })),
      };
    }
    const input = parsed.data;
    const definition = this.#definition;
    return { ok: true, input, execute: (context) => settleExecution(definition, input, context) };
  };

  /** The same JSON as a plain-data tool's. */
  toJSON(): Omit<RegisteredTool<Input>, "prepare"> {
    const { name, description, effect, parameters, strictParameters, annotations, group, fingerprint } = this;
    return { name, description, effect, parameters, strictParameters, annotations, group, fingerprint };
  }
}

/** Runs `compute` on the first call and returns its result from then on; if it throws, so does every call. */
function memoize<T>(compute: () => T): () => T {
  let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  return () => {
    if (!outcome) {
      try {
        outcome = { ok: true, value: compute() };
      } catch (error) {
        outcome = { ok: false, error };
      }
    }
    if (outcome.ok) return outcome.value;
    throw outcome.error;
  };
}

function buildSchema<Input>(factory: () => ZodType<Input>, toolName: string): ZodType<Input> {
  try {
    return factory();
  } catch (cause) {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${toolName}": its schema could not be built.`,
      {
        cause,
      },
    );
  }
}

function describeFailure(error: unknown): string {
  const message = messageOf(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${message}${cause}`;
}

function givenParameters(shown: () => JsonObject, toolName: string): JsonObject {
  const parameters = shown();
  assertObjectParameters(parameters, toolName);
  return parameters;
}

function toParameters(schema: ZodType, toolName: string): JsonObject {
  let generated: Record<string, unknown>;
  try {
    generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as Record<string, unknown>;
  } catch (cause) {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${toolName}": its schema has no JSON Schema form.`,
      {
        cause,
      },
    );
  }
  const { $schema: _dialect, ...parameters } = generated;
  assertObjectParameters(parameters, toolName);
  return parameters as JsonObject;
}

function assertObjectParameters(parameters: Record<string, unknown>, toolName: string): void {
  if (parameters.type !== "object") {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${toolName}": its schema must describe an object (got ${JSON.stringify(parameters.type ?? "any")}). Wrap the input in z.object({ ... }).`,
    );
  }
}

function assertDefinition(definition: ToolDefinition<unknown>): void {
  const { name } = definition;
  if (typeof name !== "string" || !TOOL_NAME.test(name) || name.length > MAX_TOOL_NAME_LENGTH) {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool name ${JSON.stringify(name)} must be 1-${MAX_TOOL_NAME_LENGTH} characters of [a-zA-Z0-9_-].`,
    );
  }
  if (typeof definition.description !== "string") {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${name}": description must be a string.`,
    );
  }
  if (definition.effect !== "read" && definition.effect !== "write" && definition.effect !== "external") {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${name}": effect must be "read", "write" or "external", got ${JSON.stringify(definition.effect)}.`,
    );
  }
  if (typeof definition.execute !== "function") {
    throw new ToolsError(
      TOOLS_ERROR_CODES.invalidToolDefinition,
      `Tool "${name}": execute must be a function.`,
    );
  }
}

/**
 * The tool's own promise when it returns one, not an async wrapper around it (which would cost the
 * call two more turns of the microtask queue); a value or a synchronous throw becomes a settled promise.
 */
function settleExecution<Input>(
  definition: ToolDefinition<Input>,
  input: Input,
  context: ToolContext,
): Promise<unknown> {
  try {
    return Promise.resolve(definition.execute(input, context));
  } catch (error) {
    return Promise.reject(error);
  }
}
