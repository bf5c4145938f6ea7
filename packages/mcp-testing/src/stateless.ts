/**
 * The 2026-07-28 shape for {@link FakeTransport}: a stateless server answers `server/discover`
 * instead of `initialize`, and asks the client for input by answering `input_required`. Wrap the
 * fake in `negotiateEra` (from `@agent/mcp-transport`) to talk to it as a client would; the fake
 * then records every round exactly as sent, `_meta` envelope, `inputResponses` and `requestState` included.
 */
import type { FakeHandler } from "./fake-transport.js";
import { type FakeServerOptions, fakeServer, ok } from "./fixtures.js";

/** The version a stateless server offers. */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

/** A `server/discover` result offering 2026-07-28. */
export function discoverResult(capabilities: Record<string, unknown> = { tools: {} }): unknown {
  return {
    resultType: "complete",
    supportedVersions: [STATELESS_PROTOCOL_VERSION],
    capabilities,
    serverInfo: { name: "fake-stateless-server", version: "1.0.0" },
  };
}

/** One input request of an `input_required` result: the method the client would have been sent, and its params. */
export interface FakeInputRequest {
  method: string;
  params?: unknown;
}

/** An `input_required` result asking for `inputRequests`, with `requestState` when given. */
export function inputRequired(
  inputRequests: Record<string, FakeInputRequest>,
  requestState?: string,
): { resultType: "input_required"; inputRequests: Record<string, FakeInputRequest>; requestState?: string } {
  return {
    resultType: "input_required",
    inputRequests,
    ...(requestState === undefined ? {} : { requestState }),
  };
}

/** The params of a stateless request's retry: the answers the client gave, and the state it echoed. */
export function inputResponsesOf(params: unknown): Record<string, unknown> | undefined {
  const record = params as { inputResponses?: Record<string, unknown> } | undefined;
  return record?.inputResponses;
}

/** A `tools/call` answer that is a task (tasks extension): flat, as SEP-2663 has it. */
export function taskCreated(taskId: string, pollIntervalMs = 10): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    resultType: "task",
    taskId,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs,
  };
}

/**
 * A `tasks/get` answer for `taskId` in `status`, with what that status carries (`result` once
 * `completed`, `error` once `failed`, `inputRequests` while `input_required`) in `extra`.
 */
export function taskState(
  taskId: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { resultType: "complete", ...taskCreated(taskId), status, ...extra };
}

/** Handlers for a well-behaved stateless server: {@link fakeServer}'s tools, `server/discover` and no `initialize`. */
export function statelessFakeServer(
  options: Omit<FakeServerOptions, "protocolVersion"> & { capabilities?: Record<string, unknown> } = {},
): Record<string, FakeHandler> {
  const { initialize: _handshake, ...handlers } = fakeServer(options);
  return { ...handlers, "server/discover": () => ok(discoverResult(options.capabilities)) };
}
