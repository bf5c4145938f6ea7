import { MCP_ERROR_CODES } from "@agent/mcp-transport";
import {
  defineTool,
  type JsonValue,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  type ToolContext,
  type ToolFailure,
  toolFailure,
} from "@agent/tools";
import type { ZodType } from "zod";
import type { McpToolDescriptor } from "./discovery.js";
import { mcpToolName, remoteToolNameProblem } from "./names.js";
import { copyWellFormedJson, describeValue, isRecord } from "./records.js";
import {
  checkInputSchema,
  convertOutputSchemaToZod,
  originalParameters,
  zodFromCheckedSchema,
} from "./schema/index.js";
import { toolHeaderProblem, withoutHeaderAnnotations } from "./tool-headers.js";

/**
 * What a remote request answers: the server's result, to be checked by whoever asked, or why there
 * is none, as the failure the observation will carry (a transport or JSON-RPC error already mapped
 * to its code, a server that is not connected, a call cancelled while the server reconnected).
 */
export type RemoteCallResult = { ok: true; result: unknown } | { ok: false; failure: ToolFailure };

/**
 * The small port a mapped tool calls its server through (an `McpServerConnection`'s calls, or a
 * test's fake): one hop out, one hop back, one result type. It never throws for a call's outcome.
 */
export interface RemoteToolPort {
  /**
   * Sends `tools/call` for the tool the server lists as `remoteName`, for the call in `context`;
   * `authorized` is the local tool the call was validated and authorized as (the one executing), so
   * a port can refuse to send it once its server lists another definition.
   */
  callTool(
    remoteName: string,
    args: unknown,
    context: ToolContext,
    authorized?: RegisteredTool,
  ): Promise<RemoteCallResult>;
  /**
   * Whether `callTool` honours `context.resume` (follows the remote task the call checkpointed and
   * never sends the call again); the tools of a port without it cannot be resumed.
   */
  readonly resumesTasks?: boolean;
}

/** The registry group of one server's tools. */
export function mcpToolGroup(server: string): string {
  return `mcp:${server}`;
}

/** What a successful remote call returns to the model. */
export interface McpToolOutput {
  /** Content blocks as the server sent them (text, image, audio, resource_link, resource, ...). */
  content: unknown[];
  /** Present when the server sent it; validated when the tool declares an output schema. */
  structuredContent?: unknown;
}

/** Options of {@link toLocalTool}. */
export interface ToLocalToolOptions {
  /**
   * What identifies the server beyond its name (e.g. a digest of its command, arguments and
   * environment, or of its URL and headers). It is part of the tool's fingerprint, so an approval
   * given for a tool of one server never applies to the same tool of a server reached differently.
   */
  serverIdentity?: JsonValue;
}

/**
 * Maps a remote tool to a local `external` tool in its server's group, or says why it cannot be:
 * its input schema converts to one zod schema that both validates and describes the parameters.
 * Every check runs now, so an unsupported schema is rejected here, at discovery; the conversion itself
 * (zod schema, parameters, fingerprint) runs on the tool's first use, as `defineTool` allows. The
 * descriptor is copied first: what was checked is what will be converted.
 * Annotations are kept only as unverified hints; they never change the effect.
 */
export function toLocalTool(
  descriptor: McpToolDescriptor,
  server: RemoteToolPort,
  options: ToLocalToolOptions = {},
): { ok: true; tool: RegisteredTool } | { ok: false; reason: string } {
  const nameProblem = remoteToolNameProblem(descriptor.server, descriptor.remoteName);
  if (nameProblem) return { ok: false, reason: `invalid_tool_name: ${nameProblem}` };
  const own = copyDefinition(descriptor);
  if (!own.ok) return { ok: false, reason: own.reason };
  const { description, inputSchema, outputSchema } = own.definition;
  const headerProblem = toolHeaderProblem(inputSchema);
  if (headerProblem) return { ok: false, reason: headerProblem };
  const checkedSchema = withoutHeaderAnnotations(inputSchema);
  const input = checkInputSchema(checkedSchema);
  if (!input.ok) return { ok: false, reason: `${input.code}: ${input.reason}` };
  // The model sees the checked schema itself where the generated one would lose its keywords.
  const original = originalParameters(checkedSchema);
  let output: ZodType | undefined;
  if (outputSchema !== undefined) {
    const converted = convertOutputSchemaToZod(outputSchema);
    if (!converted.ok) return { ok: false, reason: `${converted.code}: ${converted.reason}` };
    output = converted.schema;
  }
  const hints = hintsOf(own.definition);
  const mapAnswer = (answer: RemoteCallResult) => mapCallResult(answer, output);
  const tool = defineTool({
    name: mcpToolName(descriptor.server, descriptor.remoteName),
    description,
    schema: () => zodFromCheckedSchema(input.schema),
    ...(original ? { parameters: () => original } : {}),
    effect: "external",
    group: mcpToolGroup(descriptor.server),
    ...(hints ? { annotations: hints } : {}),
    ...(server.resumesTasks ? { resumable: true } : {}),
    identity: {
      server: descriptor.server,
      serverIdentity: options.serverIdentity ?? null,
      remoteName: descriptor.remoteName,
      inputSchema: inputSchema as JsonValue,
      outputSchema: (outputSchema ?? null) as JsonValue,
    },
    // The port's own promise, mapped: no async frame of its own per call. Promise.resolve returns a
    // native promise as it is, and adopts what a port written in JavaScript may answer instead.
    execute: (args, context) =>
      Promise.resolve(server.callTool(descriptor.remoteName, args, context, registered)).then(mapAnswer),
  });
  const registered = tool as RegisteredTool;
  return { ok: true, tool: registered };
}

type OwnDefinition = Pick<
  McpToolDescriptor,
  "description" | "inputSchema" | "outputSchema" | "annotations" | "title"
>;

/**
 * A private JSON copy of what the tool is built from, so that a caller changing its descriptor later
 * cannot change a tool that converts lazily. It also rejects what no fingerprint can be computed of
 * (a lone surrogate, which JSON text can carry as an escape) now rather than at first use.
 */
function copyDefinition(
  descriptor: McpToolDescriptor,
): { ok: true; definition: OwnDefinition } | { ok: false; reason: string } {
  const { description, inputSchema, outputSchema, annotations, title } = descriptor;
  const definition = copyWellFormedJson({ description, inputSchema, outputSchema, annotations, title });
  if (!definition) {
    return { ok: false, reason: "invalid_tool_definition: a string contains a lone surrogate" };
  }
  return { ok: true, definition };
}

function hintsOf(descriptor: OwnDefinition): Record<string, JsonValue> | undefined {
  const hints: Record<string, JsonValue> = { ...descriptor.annotations };
  if (descriptor.title !== undefined) hints.title = descriptor.title;
  return Object.keys(hints).length > 0 ? hints : undefined;
}

function isUntypedBlock(block: unknown): boolean {
  return !isRecord(block) || typeof block.type !== "string";
}

/**
 * Turns a `tools/call` answer into the tool's output or a failure: a failure stays as it is (a
 * transport error keeps its code, `cancelled` and `timeout` their meaning), `isError` keeps the
 * server's content, and `structuredContent` must satisfy the declared output schema.
 */
export function mapCallResult(answer: RemoteCallResult, outputSchema?: ZodType): McpToolOutput | ToolFailure {
  if (!answer.ok) return answer.failure;
  const result = answer.result;
  if (!isRecord(result) || !Array.isArray(result.content)) {
    return invalidResult(`tools/call returned ${describeValue(result)} without a content array`);
  }
  const badBlock = result.content.findIndex(isUntypedBlock);
  if (badBlock !== -1) return invalidResult(`content block ${badBlock} has no string type`);
  const content = result.content;
  if (result.isError === true) {
    return toolFailure(
      OBSERVATION_ERROR_CODES.mcpToolError,
      `The tool reported an error: ${firstText(content)}`,
      { content },
    );
  }
  const output: McpToolOutput = { content };
  if (result.structuredContent !== undefined) output.structuredContent = result.structuredContent;
  if (outputSchema) {
    const checked = outputSchema.safeParse(result.structuredContent);
    if (!checked.success) {
      return invalidResult("structuredContent does not match the tool's output schema", {
        issues: checked.error.issues.map((issue) => ({
          path: issue.path.map(String),
          message: issue.message,
        })),
      });
    }
  }
  return output;
}

/** A transport or JSON-RPC error as a tool failure: `cancelled` and `timeout` keep their meaning, the rest is `mcp_error` with its code. */
export function responseFailure(error: { code: number; message: string }): ToolFailure {
  const { code, message } = error;
  if (code === MCP_ERROR_CODES.cancelled)
    return toolFailure(OBSERVATION_ERROR_CODES.cancelled, `The server call was cancelled: ${message}`);
  if (code === MCP_ERROR_CODES.timeout)
    return toolFailure(OBSERVATION_ERROR_CODES.timeout, `The server did not answer in time: ${message}`);
  return toolFailure(OBSERVATION_ERROR_CODES.mcpError, `The server call failed (${code}): ${message}`, {
    code,
  });
}

/** The failure for a server answer that does not have the shape its method defines. */
export function invalidResult(message: string, data?: unknown): ToolFailure {
  return toolFailure(OBSERVATION_ERROR_CODES.mcpError, `The server's answer is invalid: ${message}.`, {
    code: MCP_ERROR_CODES.internalError,
    ...(data === undefined ? {} : { data }),
  });
}

function firstText(content: unknown[]): string {
  const text = content.find(
    (block) => isRecord(block) && block.type === "text" && typeof block.text === "string",
  );
  if (!text) return "(no text)";
  const value = (text as { text: string }).text;
  return value.length > 500 ? `${value.slice(0, 500)}…` : value;
}
