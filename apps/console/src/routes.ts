import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConsoleSession } from "./access.js";
import {
  CONSOLE_ERROR_CODES,
  readFields,
  redirect,
  sendError,
  sendHtml,
  sendJson,
  wantsHtml,
} from "./http-io.js";
import { renderPage } from "./layout.js";
import { openEventStream, watchVersion } from "./live.js";
import {
  approvalContent,
  approvalsContent,
  auditContent,
  runContent,
  runsContent,
  serversContent,
} from "./pages.js";
import type { ConsolePorts, ConsoleRecord, DecisionOutcome, RunActionOutcome } from "./ports.js";
import type { ServersCache } from "./servers-cache.js";

/** What one authenticated request is answered from. */
export interface RouteContext {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  method: string;
  session: ConsoleSession;
  ports: ConsolePorts;
  /** The servers' status, kept a while (reading it starts the servers). */
  servers: ServersCache;
  pollIntervalMs: number;
  closing: AbortSignal;
  isCsrfValid(token: string | undefined): boolean;
}

/** Messages of the outcomes a decision page shows after a form post (codes only travel in the URL). */
const OUTCOMES: Readonly<Record<string, string>> = Object.freeze({
  approved: "Approved once. Resume the run (on its run page) to let it continue.",
  denied: "Denied: the run will report policy_denied when it resumes.",
  already_decided: "Too late: this request was already decided, by the decider shown below.",
  resumed: "Resume requested: the run continues in a new agent process.",
  cancelled: "Cancel requested: the run's process was asked to stop.",
});

/** Answers one request of a logged-in operator. */
export async function routeRequest(context: RouteContext): Promise<void> {
  const { url, method, response } = context;
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const [first, second, third, fourth] = parts;
  if (method === "POST") {
    if (
      first === "api" &&
      second === "approvals" &&
      third &&
      (fourth === "approve" || fourth === "deny") &&
      parts.length === 4
    )
      return decide(context, third, fourth);
    if (
      first === "api" &&
      second === "runs" &&
      third &&
      (fourth === "cancel" || fourth === "resume") &&
      parts.length === 4
    )
      return runAction(context, third, fourth);
    if (first === "api" && second === "servers" && third === "refresh" && parts.length === 3)
      return refreshServers(context);
    return sendError(response, 404, CONSOLE_ERROR_CODES.notFound, `Nothing to post at ${url.pathname}.`);
  }
  if (method !== "GET" && method !== "HEAD") {
    return sendError(response, 405, CONSOLE_ERROR_CODES.methodNotAllowed, `${method} is not answered here.`);
  }
  if (first === "api") return apiGet(context, parts.slice(1));
  if (first === "events") return events(context, parts.slice(1));
  return page(context, parts);
}

async function apiGet(context: RouteContext, parts: string[]): Promise<void> {
  const { ports, response, url } = context;
  const [what, id] = parts;
  if (what === "approvals" && parts.length === 1)
    return sendJson(response, 200, { approvals: await ports.approvals.list() });
  if (what === "approvals" && id && parts.length === 2)
    return found(response, await ports.approvals.get(id), `No approval request "${id}".`);
  if (what === "runs" && parts.length === 1)
    return sendJson(response, 200, { runs: await ports.runs.list() });
  if (what === "runs" && id && parts.length === 2) {
    const run = await ports.runs.get(id);
    return found(response, run && { run }, `No run "${id}".`);
  }
  if (what === "servers" && parts.length === 1) return sendJson(response, 200, await context.servers.read());
  if (what === "audit" && parts.length === 1) {
    const filter = ports.audit.parseFilter(url.searchParams);
    if (typeof filter === "string") return sendError(response, 400, CONSOLE_ERROR_CODES.badRequest, filter);
    const records: ConsoleRecord[] = [];
    for await (const record of ports.audit.read(filter, { follow: false, signal: context.closing }))
      records.push(record);
    return sendJson(response, 200, { records });
  }
  return sendError(response, 404, CONSOLE_ERROR_CODES.notFound, `No API at ${url.pathname}.`);
}

function found(response: ServerResponse, body: unknown, missing: string): void {
  if (body === undefined) sendError(response, 404, CONSOLE_ERROR_CODES.notFound, missing);
  else sendJson(response, 200, body);
}

async function decide(context: RouteContext, id: string, action: "approve" | "deny"): Promise<void> {
  const fields = await checkedFields(context);
  if (!fields) return;
  const reason = action === "deny" && fields.reason?.trim() ? fields.reason : undefined;
  const outcome: DecisionOutcome = await context.ports.approvals.decide(id, action, reason);
  const page = `/approvals/${encodeURIComponent(id)}`;
  if (outcome.ok) {
    if (wantsHtml(context.request))
      return redirect(context.response, `${page}?outcome=${action === "approve" ? "approved" : "denied"}`);
    return sendJson(context.response, 200, { approval: outcome.record });
  }
  const status = outcome.code === "not_found" ? 404 : 409;
  if (wantsHtml(context.request) && outcome.code === "already_decided")
    return redirect(context.response, `${page}?outcome=already_decided`);
  sendError(
    context.response,
    status,
    outcome.code,
    outcome.message,
    outcome.record ? { approval: outcome.record } : {},
  );
}

async function runAction(context: RouteContext, runId: string, action: "cancel" | "resume"): Promise<void> {
  const fields = await checkedFields(context);
  if (!fields) return;
  const outcome: RunActionOutcome = await (action === "cancel"
    ? context.ports.runs.cancel(runId)
    : context.ports.runs.resume(runId));
  if (outcome.ok) {
    if (wantsHtml(context.request))
      return redirect(
        context.response,
        `/runs/${encodeURIComponent(runId)}?outcome=${action === "cancel" ? "cancelled" : "resumed"}`,
      );
    return sendJson(context.response, 202, { message: outcome.message });
  }
  sendError(context.response, outcome.code === "not_found" ? 404 : 409, outcome.code, outcome.message);
}

// Forgets the kept servers' status and reads it again (the servers page's "Check again").
async function refreshServers(context: RouteContext): Promise<void> {
  if (!(await checkedFields(context))) return;
  context.servers.invalidate();
  if (wantsHtml(context.request)) return redirect(context.response, "/servers");
  sendJson(context.response, 200, await context.servers.read());
}

// The body of a state-changing request, once its CSRF token (header or form field) is the session's.
async function checkedFields(context: RouteContext): Promise<Record<string, string> | undefined> {
  const fields = await readFields(context.request);
  if (!fields) {
    sendError(context.response, 413, CONSOLE_ERROR_CODES.bodyTooLarge, "The request body is too large.");
    return undefined;
  }
  const header = context.request.headers["x-csrf-token"];
  const token = typeof header === "string" ? header : fields.csrf;
  if (!context.isCsrfValid(token)) {
    sendError(
      context.response,
      403,
      CONSOLE_ERROR_CODES.csrfInvalid,
      "Refused: the CSRF token is missing or not this session's. Reload the page and try again.",
    );
    return undefined;
  }
  return fields;
}

async function events(context: RouteContext, parts: string[]): Promise<void> {
  const { ports, url, response } = context;
  const [what, id] = parts;
  if (what === "audit" && parts.length === 1) {
    const filter = ports.audit.parseFilter(url.searchParams);
    if (typeof filter === "string") return sendError(response, 400, CONSOLE_ERROR_CODES.badRequest, filter);
    const stream = openEventStream(response);
    const signal = AbortSignal.any([stream.signal, context.closing]);
    try {
      for await (const record of ports.audit.read(filter, { follow: true, signal }))
        stream.send("record", JSON.stringify(record));
    } catch (error) {
      if (!signal.aborted) stream.send("failed", String(error));
    }
    response.end();
    return;
  }
  const version = versionOf(ports, what, id, parts.length);
  if (!version)
    return sendError(response, 404, CONSOLE_ERROR_CODES.notFound, `No event stream at ${url.pathname}.`);
  const stream = openEventStream(response);
  const signal = AbortSignal.any([stream.signal, context.closing]);
  await watchVersion({ send: stream.send, signal }, version, context.pollIntervalMs);
  response.end();
}

function versionOf(
  ports: ConsolePorts,
  what: string | undefined,
  id: string | undefined,
  length: number,
): (() => Promise<string>) | undefined {
  if (what === "approvals" && length === 1)
    return async () =>
      JSON.stringify((await ports.approvals.list()).map(({ approval }) => [approval.id, approval.status]));
  if (what === "approvals" && id && length === 2)
    return async () => JSON.stringify((await ports.approvals.get(id))?.approval ?? null);
  if (what === "runs" && length === 1)
    return async () =>
      JSON.stringify((await ports.runs.list()).map((run) => [run.runId, run.status, run.updatedAt]));
  if (what === "runs" && id && length === 2)
    return async () => JSON.stringify((await ports.runs.get(id)) ?? null);
  return undefined;
}

async function page(context: RouteContext, parts: string[]): Promise<void> {
  const { ports, response, session, url } = context;
  const frame = (title: string, section: string, watch?: string) => ({
    title,
    section,
    csrfToken: session.csrfToken,
    operator: session.operator,
    ...(watch && { watch }),
  });
  const outcome = OUTCOMES[url.searchParams.get("outcome") ?? ""];
  const [section, id] = parts;
  if (parts.length === 0) return redirect(response, "/approvals");
  if (section === "approvals" && parts.length === 1)
    return sendHtml(
      response,
      200,
      renderPage(
        frame("Approval queue", "/approvals", "/events/approvals"),
        approvalsContent(await ports.approvals.list()),
      ),
    );
  if (section === "approvals" && id && parts.length === 2) {
    const entry = await ports.approvals.get(id);
    if (!entry)
      return sendHtml(
        response,
        404,
        renderPage(frame("No such request", "/approvals"), approvalsContent([])),
      );
    return sendHtml(
      response,
      200,
      renderPage(
        frame(`Approval request ${id}`, "/approvals", `/events/approvals/${encodeURIComponent(id)}`),
        approvalContent(entry, session.csrfToken, outcome),
      ),
    );
  }
  if (section === "runs" && parts.length === 1)
    return sendHtml(
      response,
      200,
      renderPage(frame("Runs", "/runs", "/events/runs"), runsContent(await ports.runs.list())),
    );
  if (section === "runs" && id && parts.length === 2) {
    const run = await ports.runs.get(id);
    if (!run) return sendHtml(response, 404, renderPage(frame("No such run", "/runs"), runsContent([])));
    return sendHtml(
      response,
      200,
      renderPage(
        frame(`Run ${id}`, "/runs", `/events/runs/${encodeURIComponent(id)}`),
        runContent(run, session.csrfToken, outcome),
      ),
    );
  }
  if (section === "servers" && parts.length === 1)
    return sendHtml(
      response,
      200,
      renderPage(
        frame("Servers", "/servers"),
        serversContent(await context.servers.read(), session.csrfToken, context.servers.ttlMs),
      ),
    );
  if (section === "audit" && parts.length === 1) {
    const filter = ports.audit.parseFilter(url.searchParams);
    return sendHtml(
      response,
      200,
      renderPage(
        frame("Audit trail", "/audit"),
        auditContent(url.searchParams, typeof filter === "string" ? filter : undefined),
      ),
    );
  }
  sendHtml(response, 404, renderPage(frame("Not found", ""), approvalsContent([])));
}
