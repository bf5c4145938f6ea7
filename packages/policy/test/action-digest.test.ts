import {
  ACTION_DIGEST_VERSION,
  type ActionDigestInput,
  computeActionDigest,
  PolicyError,
} from "@agent/policy";
import { canonicalJson, sha256Hex } from "@agent/tools";
import { describe, expect, it } from "vitest";

const BASE: ActionDigestInput = {
  toolName: "mcp__docs__search",
  toolFingerprint: "f".repeat(64),
  input: { q: "x", options: { limit: 5, exact: true }, tags: ["a", "b"] },
  cwd: "/work",
  network: "deny",
};

describe("computeActionDigest", () => {
  // A stored approval matches only a digest computed exactly as when it was asked. These digests are
  // fixed: if this fails, how actions are digested changed (here or in canonicalJson). That is allowed
  // only on purpose: bump ACTION_DIGEST_VERSION (old approvals are then voided with
  // `digest_version_changed` instead of never matching), add a changeset, then update these values.
  it("is unchanged for digest version 1", () => {
    expect(ACTION_DIGEST_VERSION).toBe(1);
    expect(computeActionDigest(BASE)).toBe(
      "e3c1e6c65ce8aab090de29ab2bc2eccf8815ba59633d7bf57270e4623ba69f80",
    );
    const awkward: ActionDigestInput = {
      toolName: "t",
      toolFingerprint: "0".repeat(64),
      input: { "\u00e9": 1e21, a: [null, true, -0, 0.1, 1e-7], "\u20ac": "\u2028\ud83d\ude00" },
      cwd: "/",
      network: { allowHosts: ["example.com"] },
    };
    expect(computeActionDigest(awkward)).toBe(
      "f2de517080424ffda1007266aa0da0f36f9ddaa446c6c643a5200f9c2e74d434",
    );
  });

  it("is the sha256 hex of the RFC 8785 canonical JSON of the five bound fields", () => {
    const digest = computeActionDigest(BASE);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).toBe(sha256Hex(canonicalJson(BASE)));
    expect(computeActionDigest(BASE)).toBe(digest);
  });

  it("does not change when the input's keys (at any depth) or the fields come in another order", () => {
    const reordered: ActionDigestInput = {
      network: "deny",
      cwd: "/work",
      input: { tags: ["a", "b"], options: { exact: true, limit: 5 }, q: "x" },
      toolFingerprint: "f".repeat(64),
      toolName: "mcp__docs__search",
    };
    expect(computeActionDigest(reordered)).toBe(computeActionDigest(BASE));
  });

  it("treats keys whose value is undefined as absent, as the validated input's JSON does", () => {
    const withUndefined = { ...BASE, input: { ...(BASE.input as object), missing: undefined } };
    expect(computeActionDigest(withUndefined)).toBe(computeActionDigest(BASE));
  });

  it("accepts values with a JSON form of their own, such as dates", () => {
    const at = (iso: string) => computeActionDigest({ ...BASE, input: { at: new Date(iso) } });
    expect(at("2030-01-01T00:00:00.000Z")).toBe(
      computeActionDigest({ ...BASE, input: { at: "2030-01-01T00:00:00.000Z" } }),
    );
    expect(at("2030-01-01T00:00:00.000Z")).not.toBe(at("2030-01-02T00:00:00.000Z"));
  });

  it("ignores anything outside the five bound fields", () => {
    const extra = { ...BASE, callId: "call_2", at: "now" } as ActionDigestInput;
    expect(computeActionDigest(extra)).toBe(computeActionDigest(BASE));
  });

  it.each<[string, Partial<ActionDigestInput>]>([
    ["a top-level input value", { input: { q: "y", options: { limit: 5, exact: true }, tags: ["a", "b"] } }],
    ["a nested input value", { input: { q: "x", options: { limit: 6, exact: true }, tags: ["a", "b"] } }],
    ["a value's type", { input: { q: "x", options: { limit: "5", exact: true }, tags: ["a", "b"] } }],
    ["array order", { input: { q: "x", options: { limit: 5, exact: true }, tags: ["b", "a"] } }],
    [
      "an added input key",
      { input: { q: "x", options: { limit: 5, exact: true }, tags: ["a", "b"], more: 1 } },
    ],
    ["a removed input key", { input: { q: "x", options: { limit: 5, exact: true } } }],
    ["the cwd", { cwd: "/work/other" }],
    ["the network policy", { network: "allow" }],
    ["the tool name", { toolName: "mcp__docs__fetch" }],
    ["the tool fingerprint", { toolFingerprint: "e".repeat(64) }],
  ])("changes when %s changes", (_label, change) => {
    expect(computeActionDigest({ ...BASE, ...change })).not.toBe(computeActionDigest(BASE));
  });

  it("throws unrepresentable_input for input JSON cannot carry, rather than binding something vague", () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const unfaithful = [
      cyclic,
      { n: Number.NaN },
      { n: 1n },
      { f: () => 1 },
      // JSON would flatten these to {}, so two different ones would share a digest.
      { m: new Map([["a", 1]]) },
      { s: [new Set([1])] },
      { p: new Point(1) },
    ];
    for (const input of unfaithful) {
      let thrown: unknown;
      try {
        computeActionDigest({ ...BASE, input });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PolicyError);
      expect((thrown as PolicyError).code).toBe("unrepresentable_input");
    }
  });
});
