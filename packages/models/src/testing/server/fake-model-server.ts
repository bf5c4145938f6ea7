/**
 * A loopback model server that speaks the OpenAI Chat Completions and Anthropic Messages wire APIs
 * for real (JSON and SSE), answering from a provider-neutral script, so the real SDK-based adapters
 * and whole CLI runs are tested over HTTP without the internet. Node-only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isRecord, messageOf } from "@agent/base";
import type { ModelTurn } from "../../model-client.js";
import { anthropicWire } from "./anthropic-wire.js";
import {
  type FakeModelApi,
  type FakeModelServerRequest,
  type FakeServerReply,
  type FakeServerStep,
  resolveStep,
} from "./fake-server-steps.js";
import { openAiWire } from "./openai-wire.js";
import type { SseEvent, WireContext, WireFormat } from "./wire-format.js";

/** Options of {@link createFakeModelServer}. */
export interface FakeModelServerOptions {
  /** Longest piece of text or tool arguments in one streamed delta (default 4), so deltas really split. */
  chunkSize?: number;
}

/** A running fake model server; close it when the test ends. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The `baseUrl` for the OpenAI adapter (`<url>/v1`). */
  readonly openAiBaseUrl: string;
  /** The `baseUrl` for the Anthropic adapter (`<url>`; the SDK adds `/v1/messages`). */
  readonly anthropicBaseUrl: string;
  /** Every request received, in order, including those answered with an error or never answered. */
  readonly requests: readonly FakeModelServerRequest[];
  /** How many scripted steps have not been used yet. */
  readonly remaining: number;
  /** Appends steps to the script. */
  push(...steps: FakeServerStep[]): void;
  /**
   * Resolves once request `index` (0-based) has arrived and its connection has closed, answered or
   * abandoned. It waits for a request that has not arrived yet.
   */
  whenClosed(index: number): Promise<FakeModelServerRequest>;
  /** Stops listening and drops open connections (hanging answers included); idempotent. */
  close(): Promise<void>;
}

const WIRES: Record<FakeModelApi, WireFormat> = Object.freeze({
  openai: openAiWire,
  anthropic: anthropicWire,
});
const ROUTES: Record<string, FakeModelApi> = Object.freeze({
  "/v1/chat/completions": "openai",
  "/chat/completions": "openai",
  "/v1/messages": "anthropic",
});
const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface Tracked {
  record: FakeModelServerRequest;
  closed: Promise<FakeModelServerRequest>;
}

/** Starts a fake model server on 127.0.0.1 (a free port) that answers with `steps`, in order. */
export async function createFakeModelServer(
  steps: readonly FakeServerStep[] = [],
  options: FakeModelServerOptions = {},
): Promise<FakeModelServer> {
  const chunkSize = options.chunkSize ?? 4;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new TypeError(`chunkSize must be a positive integer, got ${String(chunkSize)}`);
  }
  const queue = [...steps];
  const tracked: Tracked[] = [];
  // whenClosed() calls for requests that have not arrived yet, by index.
  const arrivals = new Map<number, Array<(entry: Tracked) => void>>();
  let closing: Promise<void> | undefined;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // An unreadable request (e.g. too large) must be visible in the test, not hang it.
      if (!response.headersSent) {
        writeJson(response, 500, { error: { message: `fake model server: ${messageOf(error)}` } });
      } else {
        response.destroy();
      }
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const api = ROUTES[path];
    const text = await readBody(request);
    if (api === undefined || request.method !== "POST") {
      writeJson(response, 404, {
        error: { message: `fake model server: no route for ${request.method} ${path}` },
      });
      return;
    }
    const body = parseJson(text);
    const record: FakeModelServerRequest = {
      api,
      method: request.method,
      path,
      headers: headersOf(request),
      body: body === undefined ? text : body,
      stream: isRecord(body) && body.stream === true,
      modelRequest: isRecord(body) ? WIRES[api].decode(body) : undefined,
      completed: false,
      closed: false,
    };
    const closed = new Promise<FakeModelServerRequest>((resolve) => {
      response.on("close", () => {
        record.completed = response.writableFinished;
        record.closed = true;
        resolve(record);
      });
    });
    const entry = { record, closed };
    tracked.push(entry);
    for (const arrived of arrivals.get(tracked.length - 1) ?? []) arrived(entry);
    arrivals.delete(tracked.length - 1);

    const wire = WIRES[api];
    const step = queue.shift();
    if (step === undefined) {
      writeJson(response, 400, wire.errorBody(400, "fake model server: the script has no more steps"));
      return;
    }
    const context: WireContext = {
      model: isRecord(body) && typeof body.model === "string" ? body.model : "fake",
      id: `fake-${api}-${tracked.length}`,
      chunkSize,
      body: isRecord(body) ? body : {},
    };
    let reply: ModelTurn | FakeServerReply;
    try {
      reply = await resolveStep(step, record);
    } catch (error) {
      // A throwing step function is a bug in the test: answer it visibly (a 400 is not retried).
      writeJson(
        response,
        400,
        wire.errorBody(400, `fake model server: the step failed: ${messageOf(error)}`),
      );
      return;
    }
    await sendReply(response, reply, { api, wire, context, stream: record.stream });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openAiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    get requests() {
      return tracked.map((entry) => entry.record);
    },
    get remaining() {
      return queue.length;
    },
    push(...more) {
      queue.push(...more);
    },
    whenClosed(index) {
      if (!Number.isInteger(index) || index < 0) {
        return Promise.reject(new RangeError(`index must be a non-negative integer, got ${String(index)}`));
      }
      const entry = tracked[index];
      if (entry !== undefined) return entry.closed;
      return new Promise<Tracked>((resolve) => {
        arrivals.set(index, [...(arrivals.get(index) ?? []), resolve]);
      }).then((arrived) => arrived.closed);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

interface ReplyTarget {
  api: FakeModelApi;
  wire: WireFormat;
  context: WireContext;
  stream: boolean;
}

async function sendReply(
  response: ServerResponse,
  reply: ModelTurn | FakeServerReply,
  { api, wire, context, stream }: ReplyTarget,
): Promise<void> {
  if (!("kind" in reply)) {
    let encoded: { events: SseEvent[] } | { json: unknown };
    try {
      encoded = stream ? { events: wire.stream(reply, context) } : { json: wire.json(reply, context) };
    } catch (error) {
      // A turn the wire cannot carry (see anthropic-wire.ts) is a script error, answered visibly.
      writeJson(response, 400, wire.errorBody(400, messageOf(error)));
      return;
    }
    if ("events" in encoded) await writeStream(response, encoded.events, true);
    else writeJson(response, 200, encoded.json);
    return;
  }
  switch (reply.kind) {
    case "status":
      writeJson(
        response,
        reply.status,
        reply.body ??
          wire.errorBody(reply.status, reply.message ?? `fake model server: status ${reply.status}`),
        reply.headers,
      );
      return;
    case "hang":
      if (reply.partial === true || reply.streamText !== undefined) {
        if (stream) await writeStream(response, wire.partialStream(reply.streamText ?? "", context), false);
        else {
          response.writeHead(200, { "content-type": "application/json" });
          response.write('{"id": ');
        }
      }
      // Nothing more: the connection stays open until the client or close() ends it.
      return;
    case "stream_error": {
      const message = reply.message ?? "fake model server: an error inside the stream";
      if (!stream) {
        const status = reply.status ?? 500;
        writeJson(response, status, wire.errorBody(status, message));
        return;
      }
      const events = [...wire.partialStream("Hel", context), wire.errorEvent(reply.errorType, message)];
      await writeStream(response, events, true);
      return;
    }
    case "malformed":
      writeMalformed(response, api, context, stream, reply.form ?? "invalid_json");
      return;
  }
}

function writeMalformed(
  response: ServerResponse,
  api: FakeModelApi,
  context: WireContext,
  stream: boolean,
  form: "invalid_json" | "truncated",
): void {
  if (!stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"id": "broken", "choices": [');
    return;
  }
  startStream(response);
  for (const event of WIRES[api].partialStream("Hel", context)) response.write(formatEvent(event));
  if (form === "invalid_json") {
    const data = '{"broken';
    response.write(formatEvent(api === "anthropic" ? { event: "content_block_delta", data } : { data }));
  }
  response.end();
}

async function writeStream(response: ServerResponse, events: SseEvent[], end: boolean): Promise<void> {
  startStream(response);
  for (const event of events) {
    if (response.destroyed) return;
    response.write(formatEvent(event));
    // Yield between events so they leave as separate chunks, as a real server's would.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (end && !response.destroyed) response.end();
}

function startStream(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.flushHeaders();
}

function formatEvent(event: SseEvent): string {
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}

function writeJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
