/**
 * The narrow ports the console is served from. The console owns no state: whoever composes it (the
 * `agent serve` command) hands it these, backed by the same stores and decision code as the shell
 * commands, so a decision taken in the browser is the same record as one taken in a terminal.
 */

/** A JSON object as the stores report it (an approval record, a run state): rendered as data, never as markup. */
export type ConsoleRecord = Record<string, unknown>;

/** One approval request of the queue, with what its digest binds (as `agent approvals show --json`). */
export interface ConsoleApproval {
  approval: ConsoleRecord & { id: string; status: string };
  /** The binding `approvals show` computes (tool, fingerprint, canonical input, cwd, network, taint, digest check). */
  binding: ConsoleRecord;
}

/** The outcome of a decision: taken here, or already taken by someone else (the record says who). */
export type DecisionOutcome =
  | { ok: true; record: ConsoleRecord }
  | { ok: false; code: "already_decided" | "not_found" | "refused"; message: string; record?: ConsoleRecord };

/** Approve once or deny one pending request through the CLI's decision path. */
export interface ApprovalPort {
  /** Every request, pending first. */
  list(): Promise<ConsoleApproval[]>;
  get(id: string): Promise<ConsoleApproval | undefined>;
  /** Decides through the same code as `agent approvals approve|deny`, as the operator the composer names. */
  /** `reason`: why an operator denies (ignored for an approval); the audit trail keeps it. */
  decide(id: string, decision: "approve" | "deny", reason?: string): Promise<DecisionOutcome>;
}

/** One line of the runs list. */
export interface ConsoleRunSummary {
  runId: string;
  kind: "agent" | "call";
  status: string;
  createdAt: string;
  updatedAt: string;
  /** The prompt of an agent run, the tool of a one-call run. */
  what: string;
  requestIds: string[];
}

/** The outcome of a cancel or resume request. */
export type RunActionOutcome = { ok: true; message: string } | { ok: false; code: string; message: string };

/** Reads runs and asks for them to be cancelled or resumed. */
export interface RunPort {
  list(): Promise<ConsoleRunSummary[]>;
  /** The whole run (an agent run's messages and pending calls), or undefined. */
  get(runId: string): Promise<ConsoleRecord | undefined>;
  cancel(runId: string): Promise<RunActionOutcome>;
  resume(runId: string): Promise<RunActionOutcome>;
}

/** The filters of `agent audit`. */
export interface ConsoleAuditFilter {
  run?: string;
  tool?: string;
  since?: string;
  tail?: number;
}

/** The audit trail, read once or followed. */
export interface AuditPort {
  /** Validates a filter as `agent audit` does; a string says what is wrong. */
  parseFilter(query: URLSearchParams): ConsoleAuditFilter | string;
  /** The matching records; with `follow`, keeps yielding new ones until `signal` aborts. */
  read(
    filter: ConsoleAuditFilter,
    options: { follow: boolean; signal: AbortSignal },
  ): AsyncIterable<ConsoleRecord>;
}

/** One configured server as `agent mcp list` / `agent tools` report it. */
export interface ConsoleServer {
  name: string;
  state: string;
  isolation: string;
  protocolVersion?: string;
  auth: string;
  tools: Array<{ name: string; description: string; decision: string }>;
}

/** The configured servers' status. */
export interface ServersPort {
  list(signal: AbortSignal): Promise<ConsoleServer[]>;
}

/** Everything the console serves from. */
export interface ConsolePorts {
  approvals: ApprovalPort;
  runs: RunPort;
  audit: AuditPort;
  servers: ServersPort;
}
