import type { ConsoleApproval, ConsolePorts, ConsoleRecord, ConsoleRunSummary } from "../src/index.js";

/** The fake ports and what they were asked. */
export type FakePorts = ConsolePorts & {
  decisions: string[];
  reasons: (string | undefined)[];
  /** How many times the servers' status was read through the port. */
  serverReads: number;
};

/** In-memory ports for the API tests: one pending request, one waiting run, a hostile tool and an audit trail. */
export function createFakePorts(): FakePorts {
  const approval: ConsoleApproval["approval"] = {
    id: "req-1",
    status: "pending",
    runId: "run-1",
    callId: "call-1",
    toolName: "mcp__evil__write",
    summary: "<img src=x onerror=alert(1)>",
    createdAt: "2026-12-02T10:00:00.000Z",
  };
  const decisions: string[] = [];
  const reasons: (string | undefined)[] = [];
  const run: ConsoleRecord = {
    runId: "run-1",
    status: "waiting",
    messages: [{ role: "tool", toolName: "t", content: "\u001b[31m<script>alert(1)</script>" }],
    pending: [],
  };
  const summary: ConsoleRunSummary = {
    runId: "run-1",
    kind: "agent",
    status: "waiting",
    createdAt: "x",
    updatedAt: "x",
    what: "prompt",
    requestIds: ["req-1"],
  };
  const binding = {
    toolName: approval.toolName,
    canonicalInput: `{"text":"${"a".repeat(2000)}"}`,
    taint: [],
    digestVerified: true,
  };
  const fake: FakePorts = {
    decisions,
    reasons,
    serverReads: 0,
    approvals: {
      list: async () => [{ approval: { ...approval }, binding }],
      get: async (id) => (id === approval.id ? { approval: { ...approval }, binding } : undefined),
      async decide(id, decision, reason) {
        if (id !== approval.id)
          return { ok: false, code: "not_found", message: `No approval request "${id}".` };
        if (approval.status !== "pending")
          return {
            ok: false,
            code: "already_decided",
            message: `Already ${approval.status} by ${String(approval.decidedBy)}.`,
            record: { ...approval },
          };
        approval.status = decision === "approve" ? "granted" : "denied";
        approval.decidedBy = "console:tester";
        decisions.push(decision);
        reasons.push(reason);
        return { ok: true, record: { ...approval } };
      },
    },
    runs: {
      list: async () => [summary],
      get: async (id) => (id === "run-1" ? run : undefined),
      cancel: async () => ({ ok: false, code: "not_running", message: "Run run-1 is waiting, not running." }),
      resume: async () => ({ ok: true, message: "resumed" }),
    },
    audit: {
      parseFilter: (query) => (query.get("tail") === "x" ? "--tail takes a whole number of events" : {}),
      async *read() {
        yield { type: "approval_requested", at: "2026-12-02T10:00:00.000Z", requestId: "req-1" };
      },
    },
    servers: {
      list: async () => {
        fake.serverReads += 1;
        return [
          {
            name: "evil",
            state: "ready",
            isolation: "bubblewrap",
            auth: "none",
            tools: [{ name: "mcp__evil__write", description: "<b>bold</b>\u001b[2J", decision: "ask" }],
          },
        ];
      },
    },
  };
  return fake;
}
