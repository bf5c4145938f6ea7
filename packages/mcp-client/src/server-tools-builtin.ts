import {
  defineTool,
  type JsonValue,
  type RegisteredTool,
  type ToolContext,
  type ToolFailure,
} from "@agent/tools";
import { z } from "zod";
import { type ServerToolAction, serverToolName } from "./names.js";
import { describeValue, isRecord } from "./records.js";
import {
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  templateMatcher,
} from "./server-catalog.js";
import { invalidResult, mcpToolGroup, type RemoteCallResult } from "./tool-mapping.js";

/** What a server's built-in tools read and send: its current listings and one request. */
export interface ServerCatalogPort {
  server: string;
  /** What identifies the server beyond its name (see `McpServerConnectionOptions.identity`). */
  serverIdentity: JsonValue | undefined;
  resources(): readonly McpResource[];
  templates(): readonly McpResourceTemplate[];
  prompts(): readonly McpPrompt[];
  /** Sends one request of the built-in tool `action` for the call in `context` (its cancellation, its audit attribution). */
  request(
    method: string,
    params: Record<string, unknown>,
    action: ServerToolAction,
    context: ToolContext,
    /** Whether the call still matches the catalog, asked again if it is listed again before sending. */
    stillApplies?: () => boolean,
  ): Promise<RemoteCallResult>;
}

/** The built-in tools of a server with resources: list them, read one the server advertised. */
export function createResourceTools(port: ServerCatalogPort): RegisteredTool[] {
  const { server } = port;
  const list = defineTool({
    name: serverToolName(server, "list_resources"),
    description: `Lists the resources and resource templates the MCP server "${server}" offers. Read one with ${serverToolName(server, "read_resource")}.`,
    // Schemas as functions, here and below: every connection creates these tools when it is
    // constructed, most servers offer no resources or prompts, and a schema given as a value is
    // converted, with its fingerprint, at once (~0.5 ms a tool).
    schema: () => z.strictObject({}),
    effect: "external",
    group: mcpToolGroup(server),
    identity: identity(port, "list_resources"),
    execute: () => ({ resources: port.resources(), resourceTemplates: port.templates() }),
  });
  const read = defineTool({
    name: serverToolName(server, "read_resource"),
    description: `Reads one resource of the MCP server "${server}" by its URI: a URI that ${serverToolName(server, "list_resources")} lists, or one matching a listed template.`,
    schema: () =>
      z.strictObject({
        uri: z.string().refine((uri) => isAdvertised(port, uri), {
          message: `not a URI the server "${server}" advertised; list its resources first`,
        }),
      }),
    effect: "external",
    group: mcpToolGroup(server),
    identity: identity(port, "read_resource"),
    execute: async ({ uri }, context) =>
      mapReadResult(
        await port.request("resources/read", { uri }, "read_resource", context, () =>
          isAdvertised(port, uri),
        ),
      ),
  });
  return [list as RegisteredTool, read as RegisteredTool];
}

/** The built-in tool of a server with prompts: get one, with its arguments. */
export function createPromptTool(port: ServerCatalogPort): RegisteredTool {
  const { server } = port;
  const tool = defineTool({
    name: serverToolName(server, "get_prompt"),
    description: `Gets a prompt of the MCP server "${server}" by name, with its arguments (all strings).`,
    schema: () =>
      z
        .strictObject({
          name: z.string(),
          arguments: z.record(z.string(), z.string()).optional(),
        })
        .superRefine((input, check) => {
          for (const issue of promptIssues(port, input)) check.addIssue({ code: "custom", ...issue });
        }),
    effect: "external",
    group: mcpToolGroup(server),
    identity: identity(port, "get_prompt"),
    execute: async (input, context) =>
      mapPromptResult(
        await port.request(
          "prompts/get",
          { name: input.name, ...(input.arguments ? { arguments: input.arguments } : {}) },
          "get_prompt",
          context,
          () => promptIssues(port, input).length === 0,
        ),
      ),
  });
  return tool as RegisteredTool;
}

/** What is wrong with a `get_prompt` input against the prompts the server lists now. */
function promptIssues(
  port: ServerCatalogPort,
  input: { name: string; arguments?: Record<string, string> | undefined },
): { path: string[]; message: string }[] {
  const prompt = port.prompts().find((candidate) => candidate.name === input.name);
  if (!prompt) return [{ path: ["name"], message: `the server "${port.server}" lists no such prompt` }];
  const issues: { path: string[]; message: string }[] = [];
  for (const argument of prompt.arguments) {
    if (argument.required && input.arguments?.[argument.name] === undefined) {
      issues.push({ path: ["arguments", argument.name], message: "is required" });
    }
  }
  for (const name of Object.keys(input.arguments ?? {})) {
    if (!prompt.arguments.some((argument) => argument.name === name)) {
      issues.push({ path: ["arguments", name], message: "is not an argument of this prompt" });
    }
  }
  return issues;
}

function identity(port: ServerCatalogPort, action: string): JsonValue {
  return { server: port.server, serverIdentity: port.serverIdentity ?? null, builtin: action };
}

/** Whether the server advertised `uri`: listed as a resource, or matching one of its templates. */
export function isAdvertised(port: Pick<ServerCatalogPort, "resources" | "templates">, uri: string): boolean {
  if (port.resources().some((resource) => resource.uri === uri)) return true;
  return port.templates().some((template) => templateMatcher(template.uriTemplate)?.(uri) === true);
}

/** What a resource read returns to the model: MCP content blocks, so the shared output cap reads them as a tool result. */
export interface ResourceReadOutput {
  content: { type: "resource"; resource: Record<string, unknown> }[];
}

function mapReadResult(answer: RemoteCallResult): ResourceReadOutput | ToolFailure {
  if (!answer.ok) return answer.failure;
  const result = answer.result;
  if (!isRecord(result) || !Array.isArray(result.contents)) {
    return invalidResult(`resources/read returned ${describeValue(result)} without a contents array`);
  }
  const content: ResourceReadOutput["content"] = [];
  for (const [index, item] of result.contents.entries()) {
    const valid =
      isRecord(item) &&
      typeof item.uri === "string" &&
      (typeof item.text === "string" || typeof item.blob === "string") &&
      (item.mimeType === undefined || typeof item.mimeType === "string");
    if (!valid) return invalidResult(`contents[${index}] needs a uri and a text or blob`);
    content.push({ type: "resource", resource: item });
  }
  return { content };
}

/** What a prompt returns: its description and messages, checked for shape. */
export interface PromptOutput {
  description?: string;
  messages: { role: "user" | "assistant"; content: Record<string, unknown> }[];
}

function mapPromptResult(answer: RemoteCallResult): PromptOutput | ToolFailure {
  if (!answer.ok) return answer.failure;
  const result = answer.result;
  if (!isRecord(result) || !Array.isArray(result.messages)) {
    return invalidResult(`prompts/get returned ${describeValue(result)} without a messages array`);
  }
  const messages: PromptOutput["messages"] = [];
  for (const [index, message] of result.messages.entries()) {
    if (
      !isRecord(message) ||
      (message.role !== "user" && message.role !== "assistant") ||
      !isRecord(message.content) ||
      typeof message.content.type !== "string"
    ) {
      return invalidResult(`messages[${index}] needs a role and a content block`);
    }
    messages.push({ role: message.role, content: message.content });
  }
  return {
    ...(typeof result.description === "string" ? { description: result.description } : {}),
    messages,
  };
}
