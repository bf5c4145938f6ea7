import type { ModelTurn } from "../../model-client.js";
import type { DecodedModelRequest } from "./decode-helpers.js";

/** One server-sent event; `event` is omitted for APIs that only send `data:` lines. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** What an encoder needs besides the turn. */
export interface WireContext {
  /** The model name the request asked for, echoed back as the APIs do. */
  model: string;
  /** A unique id for this answer. */
  id: string;
  /** Longest piece of text or arguments in one streamed delta. */
  chunkSize: number;
  /** The parsed request body. */
  body: Record<string, unknown>;
}

/** How one provider's wire API spells a turn, a stream and an error. */
export interface WireFormat {
  /** The non-streamed answer body. */
  json(turn: ModelTurn, context: WireContext): unknown;
  /** The whole stream of a turn, terminator included. */
  stream(turn: ModelTurn, context: WireContext): SseEvent[];
  /** The first events of a stream with `text` started, for hangs and broken streams. */
  partialStream(text: string, context: WireContext): SseEvent[];
  /** The API's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** The request body decoded back into the provider-neutral request. */
  decode(body: Record<string, unknown>): DecodedModelRequest;
  /** The API's error event inside a stream. */
  errorEvent(errorType: string | undefined, message: string): SseEvent;
}

/** Splits text into pieces of at most `size` characters (code points), at least one piece. */
export function splitText(text: string, size: number): string[] {
  const characters = [...text];
  if (characters.length === 0) return [""];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    pieces.push(characters.slice(start, start + size).join(""));
  }
  return pieces;
}

/** A `data:` event carrying JSON. */
export function jsonEvent(data: unknown, event?: string): SseEvent {
  return event === undefined ? { data: JSON.stringify(data) } : { event, data: JSON.stringify(data) };
}
