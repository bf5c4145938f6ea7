import assert from "node:assert/strict";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { defineTool, type ToolGate, ToolRegistry } from "@agent/tools";
import { z } from "zod";
import { resumeRun, startRun } from "../agent-run.js";
import { LoopError } from "../errors.js";
import { RUN_STATE_FORMAT, type RunState } from "../run-state.js";
import type { RunStore } from "../run-store.js";

/** A fresh, empty store, and a second handle on the same storage (another connection, another process's view). */
export interface RunStoreFixture {
  store: RunStore;
  /** Defaults to `store` itself (an in-memory store has no other handle). */
  peer?: RunStore;
  close?(): void | Promise<void>;
}

/** Makes a {@link RunStoreFixture}. */
export type RunStoreFactory = () => RunStoreFixture | Promise<RunStoreFixture>;

/** One behaviour every {@link RunStore} must have; `run` throws (an assertion error) when it does not. */
export interface RunStoreScenario {
  name: string;
  run(createStore: RunStoreFactory): Promise<void>;
}

const CREATED = "2030-01-02T03:04:05.000Z";

/** A waiting run with one held call and one finished one, unless overridden. */
export function sampleRunState(runId: string, overrides: Partial<RunState> = {}): RunState {
  return {
    format: RUN_STATE_FORMAT,
    runId,
    version: 1,
    status: "waiting",
    createdAt: CREATED,
    updatedAt: CREATED,
    provider: "scripted",
    model: "scripted",
    system: "Be brief. ✓",
    cwd: "/work/space",
    maxTurns: 20,
    maxTokens: 10_000,
    turns: 1,
    usage: { inputTokens: 12, outputTokens: 3 },
    toolSetFingerprint: "f".repeat(64),
    taint: [{ kind: "tool", name: "mcp__web__fetch", server: "web", turn: 1 }],
    pending: [
      {
        toolCallId: "tc_1",
        callId: "call_1",
        toolName: "echo",
        arguments: '{"text":"hi"}',
        status: "done",
        result: { content: "hi", isError: false },
      },
      {
        toolCallId: "tc_2",
        callId: "call_2",
        toolName: "write",
        arguments: "{}",
        status: "held",
        requestId: "apr_1",
      },
    ],
    requestIds: ["apr_1"],
    output: null,
    error: null,
    owner: { pid: 1, host: "h" },
    messages: [
      { role: "user", content: "say hi 👋" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "tc_1", name: "echo", arguments: '{"text":"hi"}' }],
      },
    ],
    calls: [
      {
        callId: "call_1",
        toolCallId: "tc_1",
        toolName: "echo",
        turn: 1,
        observation: { type: "observation", ok: true, callId: "call_1", toolName: "echo", output: "hi" },
        truncated: false,
        chars: 2,
        bytes: 2,
        sha256: "a".repeat(64),
      },
    ],
    ...overrides,
  };
}

/**
 * The contract of {@link RunStore}, as scenarios any implementation (in memory, SQLite, your own)
 * runs in its own test framework: `for (const s of RUN_STORE_CONTRACT) it(s.name, () => s.run(factory))`.
 */
export const RUN_STORE_CONTRACT: readonly RunStoreScenario[] = [
  scenario("saves a run and loads it back whole", async ({ store }) => {
    const state = sampleRunState("run_1");
    await store.createRun(state);
    assert.deepEqual(await store.loadRun("run_1"), state);
    assert.equal(await store.loadRun("run_missing"), undefined);
  }),
  scenario("refuses a second run with the same id and keeps the first", async ({ store }) => {
    await store.createRun(sampleRunState("run_1"));
    await assert.rejects(store.createRun(sampleRunState("run_1", { turns: 5 })), isLoopError("run_exists"));
    assert.equal((await store.loadRun("run_1"))?.turns, 1);
  }),
  scenario("applies an update at the expected version, appending in order", async ({ store }) => {
    await store.createRun(sampleRunState("run_1"));
    const now = new Date("2030-01-02T05:00:00.000Z");
    const version = await store.updateRun(
      "run_1",
      1,
      {
        set: { status: "running", pending: [], requestIds: [], turns: 2 },
        appendMessages: [
          { role: "tool", toolCallId: "tc_1", toolName: "echo", content: "hi", isError: false },
          { role: "assistant", content: "done", toolCalls: [] },
        ],
        appendCalls: [sampleRunState("x").calls[0] as RunState["calls"][number]],
      },
      now,
    );
    assert.equal(version, 2);
    const loaded = await store.loadRun("run_1");
    assert.equal(loaded?.version, 2);
    assert.equal(loaded?.status, "running");
    assert.equal(loaded?.turns, 2);
    assert.deepEqual(loaded?.pending, []);
    assert.equal(loaded?.updatedAt, now.toISOString());
    assert.equal(loaded?.createdAt, CREATED);
    assert.deepEqual(
      loaded?.messages.map((message) => message.role),
      ["user", "assistant", "tool", "assistant"],
    );
    assert.equal(loaded?.calls.length, 2);
    assert.equal(await store.updateRun("run_1", 2, {}, now), 3);
  }),
  scenario("answers every method with a promise, also an update that applies nothing", async ({ store }) => {
    const isPromise = (value: unknown) => typeof (value as { then?: unknown } | null)?.then === "function";
    const created = store.createRun(sampleRunState("run_1"));
    assert.ok(isPromise(created), "createRun returned no promise");
    await created;
    for (const answer of [
      store.updateRun("run_1", 1, { set: { turns: 2 } }),
      store.updateRun("run_1", 1, { set: { turns: 3 } }),
      store.updateRun("run_missing", 1, {}),
      store.loadRun("run_1"),
      store.listRuns(),
    ]) {
      assert.ok(isPromise(answer), "a RunStore method answered without a promise");
      await answer;
    }
  }),
  scenario("changes nothing at a stale version or for a missing run", async ({ store }) => {
    await store.createRun(sampleRunState("run_1"));
    assert.equal(await store.updateRun("run_1", 1, { set: { turns: 2 } }), 2);
    const before = await store.loadRun("run_1");
    const stale = await store.updateRun("run_1", 1, {
      set: { status: "completed" },
      appendMessages: [{ role: "user", content: "lost" }],
    });
    assert.equal(stale, undefined);
    assert.deepEqual(await store.loadRun("run_1"), before);
    assert.equal(await store.updateRun("run_missing", 1, {}), undefined);
  }),
  scenario("lets exactly one of many concurrent updates at one version apply", async ({ store, peer }) => {
    await store.createRun(sampleRunState("run_1"));
    const attempts = Array.from({ length: 8 }, (_, index) =>
      (index % 2 === 0 ? store : peer).updateRun("run_1", 1, {
        set: { owner: index },
        appendMessages: [{ role: "user", content: `from ${index}` }],
      }),
    );
    const versions = await Promise.all(attempts);
    const winners = versions.flatMap((version, index) => (version === undefined ? [] : [index]));
    assert.equal(winners.length, 1, `updates that applied: ${winners.join(", ")}`);
    const loaded = await peer.loadRun("run_1");
    assert.equal(loaded?.version, 2);
    assert.equal(loaded?.owner, winners[0]);
    assert.equal(loaded?.messages.length, 3);
  }),
  scenario(
    "hands out copies: changing what it returned or was given changes nothing saved",
    async ({ store }) => {
      const state = sampleRunState("run_1");
      await store.createRun(state);
      state.messages.push({ role: "user", content: "after create" });
      const loaded = (await store.loadRun("run_1")) as RunState;
      loaded.messages.length = 0;
      loaded.pending.length = 0;
      const change = {
        set: { pending: [] as RunState["pending"] },
        appendMessages: [{ role: "user" as const, content: "x" }],
      };
      await store.updateRun("run_1", 1, change);
      change.appendMessages[0] = { role: "user", content: "changed after update" };
      const again = await store.loadRun("run_1");
      assert.deepEqual(
        again?.messages.map((message) => (message.role === "user" ? message.content : message.role)),
        ["say hi 👋", "assistant", "x"],
      );
    },
  ),
  scenario("lists runs newest first, with their prompt and status, up to a limit", async ({ store }) => {
    await store.createRun(sampleRunState("run_old", { createdAt: "2030-01-01T00:00:00.000Z" }));
    await store.createRun(
      sampleRunState("run_new", {
        status: "completed",
        requestIds: [],
        createdAt: "2030-01-03T00:00:00.000Z",
      }),
    );
    const runs = await store.listRuns();
    assert.deepEqual(
      runs.map((run) => [run.runId, run.status, run.prompt]),
      [
        ["run_new", "completed", "say hi 👋"],
        ["run_old", "waiting", "say hi 👋"],
      ],
    );
    assert.deepEqual(runs[1]?.requestIds, ["apr_1"]);
    assert.equal((await store.listRuns({ limit: 1 })).length, 1);
  }),
  scenario(
    "reads a run saved in format 1 (before token budgets and taint) as it was saved",
    async ({ store, peer }) => {
      const { maxTokens: _absent, taint: _none, ...header } = sampleRunState("run_old");
      const old = { ...header, format: 1 } as unknown as RunState;
      await store.createRun(old);
      assert.deepEqual(await peer.loadRun("run_old"), old);
      assert.equal(
        await store.updateRun("run_old", 1, { set: { format: RUN_STATE_FORMAT, maxTokens: null } }),
        2,
      );
      assert.deepEqual(await peer.loadRun("run_old"), {
        ...old,
        format: RUN_STATE_FORMAT,
        maxTokens: null,
        version: 2,
        updatedAt: (await peer.loadRun("run_old"))?.updatedAt,
      });
      await assert.rejects(
        store.createRun({ ...old, runId: "run_future", format: 99 } as unknown as RunState),
        isLoopError("run_format_unknown"),
      );
    },
  ),
  scenario("keeps large outputs and any text exactly", async ({ store }) => {
    const output = `${"x".repeat(300_000)}\u0000\u001b[31m\u2028"quoted"\\`;
    const base = sampleRunState("run_1");
    const call = base.calls[0] as RunState["calls"][number];
    const state = sampleRunState("run_1", {
      calls: [{ ...call, observation: { ...call.observation, ok: true, output: { text: output } } }],
    });
    await store.createRun(state);
    assert.deepEqual(await store.loadRun("run_1"), state);
  }),
  scenario("runs a held call once when two resumes race for one waiting run", async ({ store, peer }) => {
    let executions = 0;
    let granted = false;
    const tools = new ToolRegistry();
    tools.register(
      defineTool({
        name: "write_note",
        description: "Writes a note.",
        effect: "write",
        schema: z.object({ text: z.string() }),
        execute: ({ text }) => {
          executions += 1;
          return `wrote ${text}`;
        },
      }),
    );
    // Allows every time once granted: only the store's claim keeps the second resume from running it.
    const gate: ToolGate = {
      async admit() {
        return granted
          ? { type: "allow", via: "approval", isolation: "none", run: (execute) => execute() }
          : { type: "waiting", requestId: "apr_race" };
      },
    };
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_1", name: "write_note", input: { text: "hello" } }]),
      textTurn("noted"),
    ]);
    const base = { model, tools, gate, cwd: "/work/space" };
    const started = await startRun({ ...base, store }, { prompt: "write hello", runId: "run_race" });
    assert.equal(started.status, "waiting");
    assert.deepEqual(started.requestIds, ["apr_race"]);
    granted = true;
    const outcomes = await Promise.allSettled([
      resumeRun({ ...base, store }, { runId: "run_race" }),
      resumeRun({ ...base, store: peer }, { runId: "run_race" }),
    ]);
    assert.equal(executions, 1);
    const completed = outcomes.filter((outcome) => outcome.status === "fulfilled");
    assert.equal(completed.length, 1);
    assert.equal(completed[0]?.status === "fulfilled" && completed[0].value.status, "completed");
    const refused = outcomes.find((outcome) => outcome.status === "rejected");
    assert.ok(
      refused?.status === "rejected" &&
        LoopError.isInstance(refused.reason) &&
        (refused.reason.code === "run_conflict" || refused.reason.code === "run_not_resumable"),
    );
    assert.equal(model.requests.length, 2);
    const saved = await store.loadRun("run_race");
    assert.equal(saved?.status, "completed");
    assert.equal(saved?.calls.length, 1);
  }),
];

function scenario(
  name: string,
  body: (fixture: Required<Omit<RunStoreFixture, "close">>) => Promise<void>,
): RunStoreScenario {
  return {
    name,
    async run(createStore) {
      const fixture = await createStore();
      try {
        await body({ store: fixture.store, peer: fixture.peer ?? fixture.store });
      } finally {
        await fixture.close?.();
      }
    },
  };
}

function isLoopError(code: string): (error: unknown) => boolean {
  return (error) => LoopError.isInstance(error) && error.code === code;
}
