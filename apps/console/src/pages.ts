import { foldedText, html, type Markup } from "./html.js";
import { csrfField } from "./layout.js";
import type { ConsoleApproval, ConsoleRecord, ConsoleRunSummary } from "./ports.js";
import type { ServersSnapshot } from "./servers-cache.js";

/** The approval queue: pending requests first (the port orders them), each linking to its page. */
export function approvalsContent(approvals: ConsoleApproval[]): Markup {
  if (approvals.length === 0) return html`<p>No approval requests.</p>`;
  const rows = approvals.map(({ approval }) => {
    const pending = approval.status === "pending";
    return html`<tr class="${pending ? "pending" : ""}"><td><a href="/approvals/${encodeURIComponent(approval.id)}">${approval.id}</a></td>
<td><span class="status">${pending ? "PENDING" : approval.status}</span></td><td>${approval.requestedOnHost ?? "this host"}</td>
<td>${approval.runId}</td><td class="wrap">${approval.toolName}</td><td class="wrap">${approval.summary}</td></tr>`;
  });
  return html`<div class="table"><table><thead><tr><th>Request</th><th>Status</th><th>Host</th><th>Run</th><th>Tool</th><th>Summary</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** One request: everything its digest binds, the flow guard's taint, and (if pending) the decision forms. */
export function approvalContent(entry: ConsoleApproval, csrfToken: string, outcome?: string): Markup {
  const { approval, binding } = entry;
  const id = encodeURIComponent(approval.id);
  const taint = Array.isArray(binding.taint) ? binding.taint : [];
  const facts: Array<[string, unknown]> = [
    ["Status", approval.status],
    ["Run", `${String(approval.runId)} (call ${String(approval.callId)})`],
    ["Tool", binding.toolName],
    ["Effect", approval.effect],
    ["Waits on host", approval.requestedOnHost ?? "this host"],
    ["Created", approval.createdAt],
    ["Decided by", approval.decidedBy],
    ["Decided at", approval.decidedAt],
    ["Tool fingerprint", binding.toolFingerprint],
    ["cwd (real path)", binding.cwd ?? "(not recorded)"],
    ["Network", binding.network === undefined ? "(not recorded)" : JSON.stringify(binding.network)],
    ["Digest", binding.actionDigest],
    ["Digest check", describeVerification(binding.digestVerified)],
  ];
  const canonical = typeof binding.canonicalInput === "string" ? binding.canonicalInput : "(not recorded)";
  return html`${outcome ? html`<p class="notice" role="status">${outcome}</p>` : ""}
<dl class="facts">${facts.filter(([, value]) => value !== undefined).map(([label, value]) => html`<dt>${label}</dt><dd class="wrap">${value}</dd>`)}</dl>
<section><h2>Untrusted sources (flow guard)</h2>${
    taint.length === 0
      ? html`<p>None: the run had taken in no untrusted content.</p>`
      : html`<p class="warn">WARNING: this run had read untrusted content; the digest binds these sources.</p><ul>${taint.map((source) => html`<li class="wrap">${JSON.stringify(source)}</li>`)}</ul>`
  }</section>
<section><h2>Input, whole, as canonical JSON (RFC 8785)</h2>${foldedText("Canonical input", canonical)}</section>
${approval.status === "pending" ? decisionForms(id, csrfToken) : ""}`;
}

function decisionForms(id: string, csrfToken: string): Markup {
  return html`<section class="decide"><h2>Decide</h2>
<form method="post" action="/api/approvals/${id}/approve">${csrfField(csrfToken)}<button type="submit" id="approve">Approve once</button></form>
<form method="post" action="/api/approvals/${id}/deny">${csrfField(csrfToken)}<label for="reason">Reason for denying</label>
<input id="reason" name="reason" maxlength="500"><button type="submit" id="deny">Deny</button></form></section>`;
}

function describeVerification(verified: unknown): string {
  if (verified === true) return "verified: the fields shown hash to the digest";
  if (verified === false) return "MISMATCH: the fields shown do not hash to the digest; do not approve";
  return "cannot be verified (the request predates the stored input, cwd and network)";
}

/** The runs list, newest first. */
export function runsContent(runs: ConsoleRunSummary[]): Markup {
  if (runs.length === 0) return html`<p>No runs.</p>`;
  const rows = runs.map(
    (
      run,
    ) => html`<tr><td><a href="/runs/${encodeURIComponent(run.runId)}">${run.runId}</a></td><td>${run.kind}</td>
<td><span class="status">${run.status.toUpperCase()}</span></td><td>${run.createdAt}</td><td class="wrap">${run.what}</td></tr>`,
  );
  return html`<div class="table"><table><thead><tr><th>Run</th><th>Kind</th><th>Status</th><th>Created</th><th>Prompt / tool</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** A run's transcript: model text, each call and its outcome, the held calls in place; cancel or resume. */
export function runContent(run: ConsoleRecord, csrfToken: string, outcome?: string): Markup {
  const runId = encodeURIComponent(String(run.runId ?? run.id));
  const status = String(run.status);
  const messages = Array.isArray(run.messages) ? (run.messages as ConsoleRecord[]) : [];
  const pending = Array.isArray(run.pending) ? (run.pending as ConsoleRecord[]) : [];
  const actions = [
    status === "running"
      ? html`<form method="post" action="/api/runs/${runId}/cancel">${csrfField(csrfToken)}<button type="submit" id="cancel">Cancel run</button></form>`
      : "",
    status === "waiting"
      ? html`<form method="post" action="/api/runs/${runId}/resume">${csrfField(csrfToken)}<button type="submit" id="resume">Resume run</button></form>`
      : "",
  ];
  return html`${outcome ? html`<p class="notice" role="status">${outcome}</p>` : ""}
<p>Status: <span class="status" id="run-status">${status.toUpperCase()}</span>${run.error ? html` — error: <span class="wrap">${JSON.stringify(run.error)}</span>` : ""}</p>
<div class="actions">${actions}</div>
<ol class="transcript">${messages.map(messageItem)}${pending.map(
    (call) =>
      html`<li class="held"><strong>${String(call.status).toUpperCase()}</strong> ${call.toolName}${
        call.requestId
          ? html` — <a href="/approvals/${encodeURIComponent(String(call.requestId))}">request ${call.requestId}</a>`
          : ""
      }${foldedText("Arguments", String(call.arguments ?? ""))}</li>`,
  )}</ol>${messages.length === 0 && !run.messages ? foldedText("Run record", JSON.stringify(run, null, 2)) : ""}`;
}

function messageItem(message: ConsoleRecord): Markup {
  const role = String(message.role);
  if (role === "assistant") {
    const calls = Array.isArray(message.toolCalls) ? (message.toolCalls as ConsoleRecord[]) : [];
    return html`<li class="assistant"><strong>assistant</strong> <span class="wrap">${message.content ?? ""}</span>${calls.map(
      (call) =>
        html`<div class="call">→ call ${call.name}${foldedText("Arguments", String(call.arguments ?? ""))}</div>`,
    )}</li>`;
  }
  if (role === "tool") {
    return html`<li class="tool"><strong>tool ${message.toolName}${message.isError ? " (ERROR)" : ""}</strong>${foldedText("Result", String(message.content ?? ""))}</li>`;
  }
  return html`<li class="${role}"><strong>${role}</strong> <span class="wrap">${message.content ?? ""}</span></li>`;
}

/** The configured servers, each with its tools and their policy decisions, as of `checkedAt`. */
export function serversContent(snapshot: ServersSnapshot, csrfToken: string, ttlMs: number): Markup {
  const { servers, checkedAt } = snapshot;
  const checked = html`<p>Checked at <time id="checked-at" datetime="${checkedAt}">${checkedAt}</time>; kept ${Math.round(ttlMs / 1000)} s before a view asks the servers again.</p>
<div class="actions"><form method="post" action="/api/servers/refresh">${csrfField(csrfToken)}<button type="submit" id="check-again">Check again now</button></form></div>`;
  if (servers.length === 0) return html`${checked}<p>No servers are configured.</p>`;
  return html`${checked}${servers.map(
    (
      server,
    ) => html`<section class="server"><h2>${server.name}</h2><dl class="facts"><dt>State</dt><dd>${server.state}</dd>
<dt>Isolation</dt><dd>${server.isolation}</dd><dt>Protocol version</dt><dd>${server.protocolVersion ?? "(not connected)"}</dd><dt>Auth</dt><dd>${server.auth}</dd></dl>
<div class="table"><table><thead><tr><th>Tool</th><th>Policy</th><th>Description</th></tr></thead><tbody>${server.tools.map(
      (tool) =>
        html`<tr><td class="wrap">${tool.name}</td><td><span class="status">${tool.decision.toUpperCase()}</span></td><td class="wrap">${tool.description}</td></tr>`,
    )}</tbody></table></div></section>`,
  )}`;
}

/** The audit page: the filter form of `agent audit`, and a list the script fills from the live stream. */
export function auditContent(query: URLSearchParams, error?: string): Markup {
  const field = (name: string, label: string) =>
    html`<label>${label} <input name="${name}" value="${query.get(name) ?? ""}"></label>`;
  const stream = `/events/audit?${query.toString()}`;
  return html`<form method="get" action="/audit" class="filters">${field("run", "Run")}${field("tool", "Tool pattern")}${field("since", "Since")}${field("tail", "Last N")}<button type="submit">Filter</button></form>
${error ? html`<p class="notice" role="alert">${error}</p>` : html`<ol class="audit" id="audit" data-stream="${stream}" aria-live="polite"></ol>`}`;
}
