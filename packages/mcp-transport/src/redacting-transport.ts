import { McpTransportError } from "./errors.js";
import { type Redactor, redactJson } from "./redact.js";
import {
  type McpError,
  type McpRequestContext,
  type McpResponse,
  type McpTransport,
  toRequestContext,
} from "./transport.js";

/**
 * Wraps a transport so that nothing the server sends reaches the caller with a secret in it:
 * results, error messages and data, notifications, progress messages, close reasons and
 * out-of-band errors all pass through `redactor` first (data through {@link Redactor.secrets},
 * messages through the whole redactor). The redactor is asked on every request, so a secret it
 * learns later (an OAuth token) is removed from then on; while it has none, requests pass straight through.
 */
export function createRedactingTransport<T extends McpTransport>(transport: T, redactor: Redactor): T {
  const cleanError = (error: McpError): McpError => {
    const clean: McpError = { code: error.code, message: redactor(error.message) };
    if (error.data !== undefined) clean.data = redactJson(error.data, redactor);
    return clean;
  };
  const wrapped: McpTransport = {
    async request(method, params, context): Promise<McpResponse> {
      if (!redactor.hasSecrets) return transport.request(method, params, context);
      const response = await transport.request(method, params, withCleanProgress(context, redactor));
      return response.ok
        ? { ok: true, result: redactJson(response.result, redactor) }
        : { ok: false, error: cleanError(response.error) };
    },
    async notify(method, params) {
      const sent = await transport.notify(method, params);
      return sent.ok ? sent : { ok: false, error: cleanError(sent.error) };
    },
    onNotification: (listener) =>
      transport.onNotification((notification) => listener(redactJson(notification, redactor))),
    onClose: (listener) =>
      transport.onClose((reason) => listener({ kind: reason.kind, message: redactor(reason.message) })),
    close: () => transport.close(),
    ...(transport.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: transport.closeTimeoutMs }),
  };
  const { onError } = transport;
  if (onError) {
    wrapped.onError = (listener) =>
      onError.call(transport, (error) =>
        listener(new McpTransportError(error.code, redactor(error.message), { cause: error })),
      );
  }
  // Anything else the transport offers (a stdio pid, a session id) is kept; the caller redacts its text.
  return Object.assign(Object.create(transport) as T, wrapped);
}

function withCleanProgress(context: McpRequestContext | AbortSignal, redactor: Redactor): McpRequestContext {
  const normalized = toRequestContext(context);
  const { onProgress, onTask } = normalized;
  if (!onProgress && !onTask) return normalized;
  const clean: McpRequestContext = { ...normalized };
  if (onProgress) {
    clean.onProgress = (progress) =>
      onProgress(
        progress.message === undefined ? progress : { ...progress, message: redactor(progress.message) },
      );
  }
  // A task id that echoes a secret reaches the caller (its audit trail, its saved run) redacted.
  if (onTask) clean.onTask = (event) => onTask({ ...event, taskId: redactor(event.taskId) });
  return clean;
}
