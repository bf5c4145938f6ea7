import {
  allowHostsPolicy,
  computeActionDigest,
  createPolicyGate,
  definePolicy,
  grantApprovalRequest,
  InMemoryApprovalStore,
  isLoopbackHost,
  type NetworkPolicy,
  PolicyError,
  type Sandbox,
} from "@agent/policy";
import { createMemoryEventSink, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool, sequentialIds } from "./helpers.js";

function jail(name: string, network?: NetworkPolicy): Sandbox & { runs: NetworkPolicy[] } {
  const runs: NetworkPolicy[] = [];
  return {
    name,
    isolates: true,
    ...(network === undefined ? {} : { network }),
    runs,
    async run(execute, options) {
      runs.push(options.network);
      return execute();
    },
  };
}

describe("allowHostsPolicy", () => {
  it("turns an empty list into no network, never into everything", () => {
    expect(allowHostsPolicy([])).toBe("deny");
  });

  it("normalizes names so the same list always digests alike", () => {
    const a = allowHostsPolicy(["API.github.com.", "example.org", "api.github.com"]);
    const b = allowHostsPolicy(["example.org", "api.github.com"]);
    expect(a).toEqual({ allowHosts: ["api.github.com", "example.org"] });
    const digest = (network: NetworkPolicy) =>
      computeActionDigest({ toolName: "t", toolFingerprint: "f", input: {}, cwd: "/", network });
    expect(digest(a)).toBe(digest(b));
    expect(digest(a)).not.toBe(digest("deny"));
    expect(digest(a)).not.toBe(digest(allowHostsPolicy(["example.org"])));
  });

  it.each([
    ["https://example.org"],
    ["example.org:0"],
    ["example.org:99999"],
    ["*.example.org"],
    ["a b"],
    [""],
  ])("refuses %j, which is not a host name or host:port", (host) => {
    expect(() => allowHostsPolicy([host])).toThrow(PolicyError);
  });
});

describe("allowHostsPolicy and loopback", () => {
  it.each([
    "localhost",
    "a.localhost",
    "127.0.0.1",
    "127.9.9.9",
    "127.1",
    "2130706433",
    "0177.0.0.1",
    "0.0.0.0",
    "0",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "ip6-loopback",
  ])("refuses the loopback name %j without a port", (host) => {
    expect(() => allowHostsPolicy([host])).toThrow(/PORT/);
  });

  it("admits a loopback host:port, and host:port entries of any host", () => {
    expect(allowHostsPolicy(["localhost:8080", "[::1]:80", "127.0.0.1:5432", "api.example.com:443"])).toEqual(
      {
        allowHosts: ["127.0.0.1:5432", "[::1]:80", "api.example.com:443", "localhost:8080"],
      },
    );
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackHost("2001:db8::1")).toBe(false);
  });
});

describe("createPolicyGate with a sandbox per tool", () => {
  it("runs each tool in its own sandbox, reports it, and binds that sandbox's network", async () => {
    const remote = countingTool("mcp__docs__search", "external");
    const local = countingTool("read_notes", "read");
    const docsJail = jail("bwrap", allowHostsPolicy(["docs.example.com"]));
    const registry = new ToolRegistry();
    registry.registerAll([remote.tool, local.tool]);
    const events = createMemoryEventSink();
    const approvals = new InMemoryApprovalStore({ createId: sequentialIds() });
    const gate = createPolicyGate({
      policy: definePolicy({ sandbox: "required" }),
      approvals,
      events,
      sandboxFor: (tool) => (tool.name.startsWith("mcp__docs__") ? docsJail : null),
    });
    const env = { registry, gate, runId: "run_1", cwd: "/work", events };

    const held = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(held).toMatchObject({ type: "waiting" });
    const [request] = await approvals.listApprovals();
    expect(request?.actionDigest).toBe(
      computeActionDigest({
        toolName: remote.tool.name,
        toolFingerprint: remote.tool.fingerprint,
        input: { q: "x" },
        cwd: "/work",
        network: { allowHosts: ["docs.example.com"] },
      }),
    );
    await grantApprovalRequest(approvals, "apr_1");
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env)).toMatchObject({
      ok: true,
    });
    expect(docsJail.runs).toEqual([{ allowHosts: ["docs.example.com"] }]);

    // No sandbox applies to the harness's own in-process tool: it runs, even though isolation is required.
    expect(await executeToolCall({ name: "read_notes", input: { q: "y" } }, env)).toMatchObject({ ok: true });
    expect(local.executions).toEqual([{ q: "y" }]);
    expect(events.ofType("tool_call_decided").map((event) => [event.toolName, event.isolation])).toEqual([
      ["mcp__docs__search", undefined],
      ["mcp__docs__search", "bwrap"],
      ["read_notes", "none"],
    ]);
  });

  it("refuses a tool whose own sandbox does not isolate when isolation is required", async () => {
    const command = countingTool("run_command", "write");
    const registry = new ToolRegistry();
    registry.register(command.tool);
    const gate = createPolicyGate({
      policy: definePolicy({ sandbox: "required", defaults: { write: "allow" } }),
      approvals: new InMemoryApprovalStore(),
      sandboxFor: () => ({ name: "none", isolates: false, run: (execute) => execute() }),
    });
    const outcome = await executeToolCall(
      { name: "run_command", input: { q: "x" } },
      { registry, gate, runId: "run_1", cwd: "/work" },
    );
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
    expect(command.executions).toEqual([]);
  });
});
