import { McpServerConnection } from "@agent/mcp-client";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { createScriptedModel, textTurn } from "@agent/models/testing";
import {
  createPolicyGate,
  definePolicy,
  grantApprovalRequest,
  InMemoryApprovalStore,
  type PolicyConfig,
} from "@agent/policy";
import { createMemoryEventSink, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import { createSamplingHandler } from "../src/runtime/configured-model.js";
import { EVERYTHING_SERVER } from "./e2e-helpers.js";

const CALL_SAMPLING = { tool: "mcp__everything__trigger-sampling-request", decision: "allow" as const };

/** server-everything offered sampling through the CLI's handler, on a scripted model, behind `policy`. */
async function setup(
  policy: PolicyConfig,
  options: { operatorApproves?: boolean; triggerPolicy?: PolicyConfig } = {},
) {
  const answer = "a scripted answer";
  const events = createMemoryEventSink();
  const approvals = new InMemoryApprovalStore();
  const gate = createPolicyGate({ policy: definePolicy(policy), approvals, events });
  // The tool that makes the server ask may pass another gate: a server may ask whenever it likes.
  const triggerGate = options.triggerPolicy
    ? createPolicyGate({ policy: definePolicy(options.triggerPolicy), approvals, events })
    : gate;
  const seen: unknown[] = [];
  const model = createScriptedModel([
    (request) => {
      seen.push(request);
      return textTurn(answer);
    },
  ]);
  const registry = new ToolRegistry();
  const connection = new McpServerConnection({
    name: "everything",
    connect: () => createStdioTransport({ command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] }),
    registry,
    events,
    features: {
      sampling: {
        maxTokens: 64,
        handler: createSamplingHandler({
          server: "everything",
          model: () => model,
          gate,
          events,
          runId: () => "run_sampling",
          cwd: "/work",
          timeoutMs: 10_000,
          ...(options.operatorApproves
            ? {
                // What the terminal does: the person approves the request shown, once.
                askOperator: async (held) => {
                  await grantApprovalRequest(approvals, held.requestId, events);
                  return true;
                },
              }
            : {}),
        }),
      },
    },
  });
  onTestFinished(() => connection.close());
  await connection.start();
  const trigger = () =>
    executeToolCall(
      {
        name: "mcp__everything__trigger-sampling-request",
        input: { prompt: "write a haiku", maxTokens: 500 },
      },
      { registry, gate: triggerGate, runId: "run_call", cwd: "/work", timeoutMs: 20_000, events },
    );
  return { trigger, seen, events, approvals };
}

describe("sampling through the gate", () => {
  it("is held by default: the server gets a refusal naming the approval, the model is never asked", async () => {
    const { trigger, seen, events, approvals } = await setup({ rules: [CALL_SAMPLING] });
    const outcome = await trigger();
    expect(outcome).toMatchObject({ ok: false });
    expect(JSON.stringify(outcome)).toMatch(/held for approval apr_/);
    expect(seen).toEqual([]);
    const [request] = await approvals.listApprovals({ status: "pending" });
    // The approval shows the prompt whole: it is the held call's input.
    expect(request).toMatchObject({ toolName: "mcp_sampling__everything", effect: "external" });
    expect(JSON.stringify(request?.inputPreview)).toContain("write a haiku");
    expect(events.ofType("tool_call_decided").at(-1)).toMatchObject({ decision: "ask" });
  });

  it("runs on the configured model when the policy allows it, capped in tokens, audited without text", async () => {
    const { trigger, seen, events } = await setup({
      rules: [CALL_SAMPLING, { tool: "mcp_sampling__everything", decision: "allow" }],
    });
    const outcome = await trigger();
    expect(JSON.stringify(outcome)).toContain("a scripted answer");
    expect(seen[0]).toMatchObject({
      maxOutputTokens: 64,
      system: "You are a helpful test server.",
      tools: [],
    });
    expect(events.ofType("mcp_sampling")).toEqual([expect.objectContaining({ ok: true, maxTokens: 64 })]);
    expect(JSON.stringify(events.ofType("mcp_sampling"))).not.toContain("scripted answer");
  });

  it("runs once an operator at the terminal approves the held request", async () => {
    const { trigger, seen, approvals } = await setup({ rules: [CALL_SAMPLING] }, { operatorApproves: true });
    const outcome = await trigger();
    expect(JSON.stringify(outcome)).toContain("a scripted answer");
    expect(seen).toHaveLength(1);
    expect(await approvals.listApprovals({ status: "consumed" })).toHaveLength(1);
  });

  it("is refused when the policy denies it", async () => {
    const { trigger, seen } = await setup({
      rules: [CALL_SAMPLING, { tool: "mcp_sampling__*", decision: "deny" }],
    });
    const outcome = await trigger();
    expect(JSON.stringify(outcome)).toContain("policy_denied");
    expect(seen).toEqual([]);
  });

  it("is refused when a rule denies the whole server, even where sampling is allowed", async () => {
    const { trigger, seen } = await setup(
      {
        defaults: { external: "allow" },
        rules: [
          { tool: "mcp__everything__*", decision: "deny" },
          { tool: "mcp_sampling__everything", decision: "allow" },
        ],
      },
      { triggerPolicy: { rules: [CALL_SAMPLING] } },
    );
    const outcome = await trigger();
    const told = JSON.stringify(outcome);
    expect(told).toContain("policy_denied");
    expect(told).toContain("mcp__everything__*");
    expect(seen).toEqual([]);
  });
});
