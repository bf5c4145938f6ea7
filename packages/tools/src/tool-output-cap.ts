import { sha256Hex } from "./canonical-json.js";
import type { Observation } from "./observation.js";
import { isHighSurrogate, utf8Length } from "./utf8.js";

/**
 * The default cap on what a model or a terminal reads of one tool result: 100,000 characters, about
 * 25k tokens, the range Claude Code uses for its tools.
 */
export const DEFAULT_TOOL_OUTPUT_MAX_CHARS = 100_000;

/** Options of {@link capToolOutput}. */
export interface ToolOutputCapOptions {
  /** The most characters (UTF-16 code units) of the text kept, marker included; at least 200. */
  maxChars?: number;
}

/**
 * A tool result as a model (or a terminal) reads it, cut to a size, with what identifies the whole.
 * Only a cut text carries a sha256: a whole one is its own reference, and hashing every result a
 * long agent run reads would cost more than the rest of its bookkeeping.
 */
export type CappedToolOutput =
  | (CappedTextFacts & { truncated: false })
  | (CappedTextFacts & {
      truncated: true;
      /** sha256 (hex) of the full text's UTF-8 bytes: the full output can be matched against it later. */
      sha256: string;
    });

interface CappedTextFacts {
  /** The model-facing text: the whole text, or its beginning followed by a marker saying what was cut. */
  text: string;
  /** Whether `text` is shorter than the full text. */
  truncated: boolean;
  /** Length of the full text, in characters (UTF-16 code units). */
  chars: number;
  /** Size of the full text, in UTF-8 bytes. */
  bytes: number;
}

// Below this the marker alone would not fit; a cap that small is a mistake, not a setting.
const MIN_MAX_CHARS = 200;

/**
 * The text a model reads for an observation, before any cap: a successful string output as it is,
 * an MCP result's text blocks joined by newlines (other blocks as a one-line description, structured
 * content as JSON), any other output as JSON; a failure as JSON of its code, message and details
 * (never its call id or tool name: the model already knows which call it made).
 */
export function observationText(observation: Observation): string {
  if (!observation.ok) {
    const { type: _type, ok: _ok, callId: _callId, toolName: _toolName, ...failure } = observation;
    return JSON.stringify(failure);
  }
  return outputText(observation.output);
}

/**
 * Caps the model-facing text of a tool result (an {@link Observation}, or text already rendered) at
 * `maxChars`: a longer one keeps its beginning and ends with a marker giving the full size and
 * sha256 (also returned), so the model knows it saw part of it. A text within the cap is returned
 * whole, with its size and no hash. The full text is the caller's to keep (a run's
 * record, a file), referenced by that size and sha256.
 */
export function capToolOutput(
  output: Observation | string,
  options: ToolOutputCapOptions = {},
): CappedToolOutput {
  const maxChars = options.maxChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS;
  if (!Number.isSafeInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new RangeError(
      `maxChars must be an integer of at least ${MIN_MAX_CHARS}, got ${String(maxChars)}.`,
    );
  }
  const full = typeof output === "string" ? output : observationText(output);
  const chars = full.length;
  const bytes = utf8Length(full);
  if (chars <= maxChars) return { text: full, truncated: false, chars, bytes };
  const sha256 = sha256Hex(full);
  const marker = `\n[output truncated: showing the first %KEPT% of ${chars} characters (${bytes} bytes, sha256 ${sha256})]`;
  let kept = maxChars - (marker.length - "%KEPT%".length + String(maxChars).length);
  // Never end on the first half of a surrogate pair: the text stays well-formed.
  if (isHighSurrogate(full.charCodeAt(kept - 1))) kept -= 1;
  const text = full.slice(0, kept) + marker.replace("%KEPT%", String(kept));
  return { text, truncated: true, chars, bytes, sha256 };
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (isMcpResult(output)) {
    const parts = output.content.map(describeBlock);
    if (output.structuredContent !== undefined) parts.push(JSON.stringify(output.structuredContent));
    return parts.join("\n");
  }
  return JSON.stringify(output) ?? "null";
}

function describeBlock(block: unknown): string {
  if (typeof block !== "object" || block === null) return JSON.stringify(block) ?? "null";
  const record = block as Record<string, unknown>;
  if (record.type === "text" && typeof record.text === "string") return record.text;
  // Binary payloads (images, audio, blobs) mean nothing to a model as base64: say what they are.
  const parts = [`[${String(record.type)}`];
  if (typeof record.mimeType === "string") parts.push(record.mimeType);
  if (typeof record.data === "string") parts.push(`${Math.ceil((record.data.length * 3) / 4)} bytes`);
  if (typeof record.uri === "string") parts.push(record.uri);
  const resource = record.resource as Record<string, unknown> | undefined;
  if (typeof resource === "object" && resource !== null) {
    if (typeof resource.uri === "string") parts.push(resource.uri);
    if (typeof resource.text === "string") return `${parts.join(" ")}]\n${resource.text}`;
  }
  return `${parts.join(" ")}]`;
}

function isMcpResult(output: unknown): output is { content: unknown[]; structuredContent?: unknown } {
  return (
    typeof output === "object" && output !== null && Array.isArray((output as { content?: unknown }).content)
  );
}
