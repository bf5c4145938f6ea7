import { describe, expect, it } from "vitest";
import { copyJson } from "../src/json-copy.js";
import {
  COPIED_MEMBERS,
  copyCallRecord,
  copyMessage,
  copyObservation,
  copyPendingCall,
} from "../src/run-record-copy.js";
import type { RunState } from "../src/run-state.js";
import { loadCallRecord, loadMessage, storeCallRecord, storeMessage } from "../src/stored-records.js";
import { sampleRunState } from "../src/testing/run-store-contract.js";

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe("copyJson", () => {
  it("gives what a JSON round trip gives, for what JSON treats specially too", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const values: unknown[] = [
      { a: 1, b: [1, "two", null, true], c: { d: { e: "deep" } } },
      { skipped: undefined, fn: () => 1, kept: 0, nan: Number.NaN, inf: -Infinity },
      [undefined, () => 1, Number.NaN, { x: undefined }],
      { at: new Date("2030-01-02T03:04:05.000Z"), map: new Map([[1, 2]]), point: new Point(1, 2) },
      { toJSON: () => ({ replaced: true }) },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
      Object.assign(Object.create(null), { bare: "object" }),
      "text",
      42,
      null,
    ];
    for (const value of values) expect(copyJson(value)).toStrictEqual(roundTrip(value));
    const protoCopy = copyJson(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(protoCopy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("detaches every object and array from the original", () => {
    const original = { list: [{ n: 1 }], nested: { inner: { n: 2 } } };
    const copy = copyJson(original);
    original.list[0] = { n: 9 };
    original.nested.inner.n = 9;
    expect(copy).toEqual({ list: [{ n: 1 }], nested: { inner: { n: 2 } } });
  });

  it("reports a cycle as JSON.stringify does, and copies values deeper than its own recursion", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => copyJson(cyclic)).toThrow(TypeError);
    let deep: unknown = "bottom";
    for (let level = 0; level < 1000; level += 1) deep = { level, deep };
    expect(copyJson(deep)).toStrictEqual(roundTrip(deep));
    expect(() => copyJson({ big: 1n })).toThrow(TypeError);
  });
});

describe("field-by-field copies", () => {
  it("keep every member their types have (the member lists are checked against the types when compiled)", () => {
    const state = sampleRunState("run_1");
    const record = {
      ...(state.calls[0] as (typeof state.calls)[number]),
      truncated: true,
      sha256: "b".repeat(64),
    };
    expect(Object.keys(record).sort()).toEqual(Object.keys(COPIED_MEMBERS.callRecord).sort());
    expect(copyCallRecord(record)).toStrictEqual(record);
    const held = {
      ...(state.pending[1] as (typeof state.pending)[number]),
      result: { content: "c", isError: true },
      checkpoint: { mcpTask: { server: "s", taskId: "t-1" } },
    };
    expect(Object.keys(held).sort()).toEqual(Object.keys(COPIED_MEMBERS.pendingCall).sort());
    expect(copyPendingCall(held)).toStrictEqual(held);
  });
});

describe("copyObservation", () => {
  it("gives what a JSON round trip gives, for the usual success and for every other shape", () => {
    const ids = { type: "observation", callId: "call_1", toolName: "echo" } as const;
    const observations = [
      { ...ids, ok: true, output: "hello" },
      { ...ids, ok: true, output: { content: [{ type: "text", text: "hi" }], nested: [1, null] } },
      { ...ids, ok: true, output: undefined },
      { ...ids, ok: true, output: Number.NaN },
      { ...ids, ok: true, output: "x", extra: "kept, as JSON keeps it" },
      { ...ids, ok: true, output: "x", skipped: undefined },
      { ...ids, ok: 1, output: "x" },
      { ...ids, callId: undefined, ok: true, output: "x" },
      { ...ids, ok: false, error: "tool_error", message: "failed", issues: [{ path: ["a"], message: "m" }] },
      Object.assign(Object.create(null), { ...ids, ok: true, output: "no prototype" }),
      { ...ids, ok: true, output: "x", toJSON: () => ({ replaced: true }) },
      JSON.parse('{"type":"observation","ok":true,"callId":"c","toolName":"t","__proto__":{"output":1}}'),
    ];
    for (const observation of observations) {
      const copy = copyObservation(observation as never);
      expect(copy).toStrictEqual(roundTrip(observation));
      if (typeof observation === "object" && observation !== null) expect(copy).not.toBe(observation);
    }
  });

  it("detaches the output from the original", () => {
    const list = [1];
    const observation = {
      type: "observation",
      ok: true,
      callId: "c",
      toolName: "t",
      output: { list },
    } as const;
    const copy = copyObservation(observation) as { output: { list: number[] } };
    list.push(2);
    expect(copy.output.list).toEqual([1]);
  });
});

describe("what the in-memory store keeps of a run's lists", () => {
  it("loads every message and call record as their detached copies would load, in compact form or not", () => {
    const base = sampleRunState("run_1");
    const record = base.calls[0] as (typeof base.calls)[number];
    const messages = [
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "tc_1", name: "echo", arguments: '{"text":"hi"}' }],
      },
      {
        role: "assistant",
        content: "two calls",
        toolCalls: [
          { id: "tc_1", name: "a", arguments: "{}" },
          { id: "tc_2", name: "b", arguments: "" },
        ],
      },
      { role: "assistant", content: "none", toolCalls: [] },
      { role: "tool", toolCallId: "tc_1", toolName: "echo", content: "hi", isError: false },
      { role: "user", content: "more" },
    ] as const;
    for (const message of messages) {
      const loaded = loadMessage(storeMessage(message as never));
      expect(loaded).toStrictEqual(roundTrip(copyMessage(message as never)));
      expect(loaded).toStrictEqual(roundTrip(message));
    }
    const { sha256: _none, ...uncut } = record;
    const records = [
      record,
      uncut,
      { ...record, observation: { ...record.observation, output: { nested: [1, { deep: true }] } } },
      { ...record, observation: { ...record.observation, output: undefined } },
      { ...record, observation: { ...record.observation, extra: 1 } },
      {
        ...record,
        observation: {
          type: "observation",
          ok: false,
          callId: "c",
          toolName: "t",
          error: "tool_error",
          message: "m",
        },
      },
      { ...record, chars: Number.NaN },
    ];
    for (const each of records) {
      const loaded = loadCallRecord(storeCallRecord(each as never));
      expect(loaded).toStrictEqual(roundTrip(copyCallRecord(each as never)));
    }
  });

  it("shares nothing with what it was given or what it hands out", () => {
    const output = { list: [1] };
    const record = {
      ...(sampleRunState("run_1").calls[0] as RunState["calls"][number]),
      observation: { type: "observation" as const, ok: true as const, callId: "c", toolName: "t", output },
    };
    const stored = storeCallRecord(record);
    output.list.push(2);
    const loaded = loadCallRecord(stored);
    expect(loaded.observation).toMatchObject({ output: { list: [1] } });
    ((loaded.observation as { output: { list: number[] } }).output.list as number[]).push(3);
    expect(loadCallRecord(stored).observation).toMatchObject({ output: { list: [1] } });
    const call = { id: "tc_1", name: "echo", arguments: "{}" };
    const message = storeMessage({ role: "assistant", content: null, toolCalls: [call] });
    call.name = "changed";
    const first = loadMessage(message);
    expect(first).toMatchObject({ toolCalls: [{ name: "echo" }] });
    const [loadedCall] = (first as { toolCalls: { name: string }[] }).toolCalls;
    if (loadedCall) loadedCall.name = "changed again";
    expect(loadMessage(message)).toMatchObject({ toolCalls: [{ name: "echo" }] });
  });
});
