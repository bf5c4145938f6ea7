// Where a governed call's client CPU goes, stage by stage, in-process (no server process, no pipe):
// executeToolCall -> policy gate (allow rule) -> McpServerConnection -> FakeTransport, the echo tool
// answered at once. Each stage is timed alone over many calls; "audit" is the difference between the
// whole call with the JSONL audit file (default flush) and with no events at all, and the last stage
// is what the whole call costs beyond the others (executor bookkeeping, the connection's call path,
// the fake transport). Medians of rounds; CPU time of this process, which other load disturbs less
// than wall time. A regression shows here as the stage it came from. The flow guard's rows: the same
// call in a tainted run (the rule says `tainted: "allow"`, so it runs), authorized alone and whole.
import { join } from "node:path";
import { GATE_SERVER } from "./clients.mjs";
import { median, resultRow } from "./stats.mjs";

const DEFAULTS = { rounds: 5, calls: 5000, warmupCalls: 2000 };
const ECHO = `mcp__${GATE_SERVER}__echo`;
const INPUT = { q: "hello" };

async function cpuMsPerCall(count, once) {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) await once();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

/** A connection over a FakeTransport with one `echo` tool, and a gate allowing it; events to `events`. */
async function openInProcessGate(modules, cleanup, events, flows = "guard") {
  const registry = new modules.ToolRegistry();
  const connection = new modules.McpServerConnection({
    name: GATE_SERVER,
    registry,
    events,
    // No log of the calls: a fake that keeps every request would grow the heap the stages are timed on.
    connect: () => new modules.FakeTransport(modules.fakeServer({ tools: ["echo"] }), { record: false }),
  });
  cleanup.add(() => connection.close());
  await connection.start();
  const gate = modules.createPolicyGate({
    // `tainted: "allow"`: a call of a tainted run is judged by the flow guard and still runs.
    policy: modules.definePolicy({
      rules: [{ tool: `mcp__${GATE_SERVER}__*`, decision: "allow", tainted: "allow" }],
      flows,
    }),
    approvals: new modules.InMemoryApprovalStore(),
    events,
  });
  const environment = { registry, gate, runId: "bench", cwd: process.cwd(), events };
  return { environment, registry, gate };
}

/**
 * Measures the stages (`lookup`, `validate`, `authorize`, `audit`, `transport` (the rest of the call),
 * `mapping`) and the whole call, in client CPU milliseconds per call.
 */
export async function benchStages(modules, cleanup, { progress, ...options }) {
  const settings = { ...DEFAULTS, ...options };
  const audited = modules.createJsonlEventSink(
    join(cleanup.tempFolder("agent-bench-stages-"), "audit.jsonl"),
  );
  cleanup.add(() => audited.close());
  const withAudit = await openInProcessGate(modules, cleanup, audited);
  const silent = await openInProcessGate(modules, cleanup, modules.NULL_EVENT_SINK);
  // The same gate with the flow guard off: what a clean run's call costs without it.
  const unguarded = await openInProcessGate(modules, cleanup, modules.NULL_EVENT_SINK, "off");
  const tool = silent.registry.get(ECHO);
  if (!tool) throw new Error(`stages: ${ECHO} was not registered`);
  const prepared = tool.prepare(INPUT);
  if (!prepared.ok) throw new Error("stages: the echo input did not validate");
  const response = { ok: true, result: { content: [{ type: "text", text: '{"q":"hello"}' }] } };
  const request = { tool, input: prepared.input, runId: "bench", callId: "call_1", cwd: process.cwd() };
  const signal = new AbortController().signal;
  const taint = [{ kind: "tool", name: "mcp__web__fetch", server: "web", turn: 1 }];
  const call =
    (environment, tainted = false) =>
    async () => {
      const outcome = await modules.executeToolCall(
        tainted ? { name: ECHO, input: INPUT, taint } : { name: ECHO, input: INPUT },
        environment,
      );
      if (outcome.type !== "observation" || !outcome.ok)
        throw new Error(`stages: the call failed: ${outcome.type}`);
    };
  const measured = {
    lookup: () => silent.registry.get(ECHO),
    validate: () => tool.prepare(INPUT),
    authorize: () => silent.gate.admit({ ...request, signal }),
    authorizeTainted: () => silent.gate.admit({ ...request, signal, taint }),
    authorizeUnguarded: () => unguarded.gate.admit({ ...request, signal }),
    mapping: () => modules.mapCallResult(response),
    whole: call(withAudit.environment),
    unaudited: call(silent.environment),
    unauditedTainted: call(silent.environment, true),
    unauditedUnguarded: call(unguarded.environment),
  };
  const names = Object.keys(measured);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  progress(`stages: warming up (${settings.warmupCalls} calls per stage)`);
  for (const name of names) await cpuMsPerCall(settings.warmupCalls, measured[name]);
  for (let round = 0; round < settings.rounds; round += 1) {
    progress(`stages: round ${round + 1} of ${settings.rounds}`);
    for (const name of names) samples[name].push(await cpuMsPerCall(settings.calls, measured[name]));
  }
  const result = Object.fromEntries(names.map((name) => [name, median(samples[name])]));
  const known = result.lookup + result.validate + result.authorize + result.mapping;
  return {
    lookup: result.lookup,
    validate: result.validate,
    authorize: result.authorize,
    audit: Math.max(0, result.whole - result.unaudited),
    transport: Math.max(0, result.unaudited - known),
    mapping: result.mapping,
    whole: result.whole,
    guardAuthorize: result.authorizeTainted,
    guardWhole: result.unauditedTainted,
    unaudited: result.unaudited,
    unguardedAuthorize: result.authorizeUnguarded,
    unguardedWhole: result.unauditedUnguarded,
  };
}

/** The table rows of {@link benchStages}: each stage against the whole in-process call (its share). */
export function stageRows(stages, format) {
  // The baseline column is the whole in-process call, so the ratio is the stage's share of it.
  const row = (name, ours) =>
    resultRow({ metric: `in-process call stage, CPU/call: ${name}`, ours, raw: stages.whole, format });
  return [
    row("lookup (registry)", stages.lookup),
    row("validate (input schema)", stages.validate),
    row("authorize (policy gate)", stages.authorize),
    row("audit (JSONL, default flush)", stages.audit),
    row("transport (executor, connection, fake transport)", stages.transport),
    row("mapping (tools/call result)", stages.mapping),
    // The flow guard: a clean run's call takes the path above (one length check); a tainted run's is
    // judged rule by rule. Against the same call clean, so the ratio is the guard's cost.
    resultRow({
      metric: "flow guard on: authorize a clean run's call (vs. guard off)",
      ours: stages.authorize,
      raw: stages.unguardedAuthorize,
      format,
    }),
    resultRow({
      metric: "flow guard on: whole clean call, no audit (vs. guard off)",
      ours: stages.unaudited,
      raw: stages.unguardedWhole,
      format,
    }),
    resultRow({
      metric: "flow guard: authorize a tainted run's call (vs. clean)",
      ours: stages.guardAuthorize,
      raw: stages.authorize,
      format,
    }),
    resultRow({
      metric: "flow guard: whole call in a tainted run, no audit (vs. clean)",
      ours: stages.guardWhole,
      raw: stages.unaudited,
      format,
    }),
  ];
}
