import type { McpRequestAnswer } from "@agent/mcp-transport";
import type { ElicitationField } from "./elicitation-schema.js";

/** A root the client offers the server: a `file://` URI and an optional display name. */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** A form a server asks the user to fill (`elicitation/create`, form mode), already checked. */
export interface ElicitationRequest {
  server: string;
  /** The server's message, as sent: escape it before showing it on a terminal. */
  message: string;
  fields: ElicitationField[];
  /** Whether the form seems to ask for a secret (password, token, ...): warn the user. */
  sensitive: boolean;
}

/** The user's answer to a form. An accepted answer's content is completed with defaults and validated before it is sent. */
export type ElicitationAnswer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/** Asks the user; the signal aborts when the server cancels the request or the connection ends. */
export type ElicitationHandler = (
  request: ElicitationRequest,
  context: { signal: AbortSignal },
) => Promise<ElicitationAnswer>;

/** A server's `sampling/createMessage`, checked, with `maxTokens` already capped by the client. */
export interface SamplingRequest {
  server: string;
  messages: SamplingMessage[];
  systemPrompt: string | undefined;
  /** The smaller of the server's `maxTokens` and the client's cap. */
  maxTokens: number;
  temperature: number | undefined;
  stopSequences: string[] | undefined;
}

/** One message of a sampling request; only text content is accepted. */
export interface SamplingMessage {
  role: "user" | "assistant";
  text: string;
}

/** What the model answered a sampling request, or why there is no answer. */
export type SamplingAnswer =
  | { ok: true; text: string; model: string; stopReason: string | undefined }
  | { ok: false; code: number; message: string };

/** Runs one sampling request (through the policy, on the configured model); the signal aborts on cancellation. */
export type SamplingHandler = (
  request: SamplingRequest,
  context: { signal: AbortSignal },
) => Promise<SamplingAnswer>;

/**
 * What the client offers a server. Each feature is advertised in `initialize` only when it is set;
 * a server request for a feature that is not offered is answered "method not found".
 */
export interface McpClientFeatures {
  /** Roots to list on `roots/list` (change them with `setRoots`, which tells the server). */
  roots?: readonly McpRoot[];
  /** Answers `elicitation/create` in form mode. */
  elicitation?: ElicitationHandler;
  /** Answers `sampling/createMessage`, with every request capped at `maxTokens`. */
  sampling?: { handler: SamplingHandler; maxTokens: number };
}

/** The `capabilities` of `initialize` for the features on offer. */
export function clientCapabilities(features: McpClientFeatures): Record<string, unknown> {
  return {
    ...(features.roots ? { roots: { listChanged: true } } : {}),
    // `form` names the mode for 2025-11-25 servers; older ones read `{}` and ignore the key.
    ...(features.elicitation ? { elicitation: { form: {} } } : {}),
    ...(features.sampling ? { sampling: {} } : {}),
  };
}

/** A JSON-RPC error answer. */
export function errorAnswer(code: number, message: string): McpRequestAnswer {
  return { ok: false, error: { code, message } };
}
