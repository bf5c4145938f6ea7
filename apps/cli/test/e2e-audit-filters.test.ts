import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  parseSingleJson,
  e2eTest as test,
  waitFor,
  waitingIds,
} from "./e2e-helpers.js";

type Event = Record<string, unknown>;

function parseLines(stdout: string): Event[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Event);
}

/** A held server call (run A, an approval request) and an allowed local call (run B). */
async function makeHistory(sandbox: E2eSandbox): Promise<{ held: string; local: string; requestId: string }> {
  sandbox.writeConfig({ mcpServers: { s: sandbox.scriptableServer("s") } });
  writeFileSync(join(sandbox.workspace, "note.txt"), "a note");
  const held = await sandbox.run(["call", "mcp__s__echo", "--json"]);
  expect(held.code, held.stderr).toBe(3);
  const local = await sandbox.run(["call", "read_file", "--input", '{"path":"note.txt"}', "--json"]);
  expect(local.code, local.stderr).toBe(0);
  const { runId, requestId } = waitingIds(held.stdout);
  return { held: runId, local: String(parseSingleJson(local.stdout).runId), requestId };
}

describe.concurrent("audit filters and approvals list --pending", () => {
  test("--run, --tool, --since and --tail select events; bad values are usage errors", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const { held, local } = await makeHistory(sandbox);
    const all = sandbox.auditEvents();
    const [byRun, byTool, recent, future, past, tail, badSince, badTail] = await Promise.all([
      sandbox.run(["audit", "--json", "--run", held]),
      sandbox.run(["audit", "--json", "--tool", "read_*"]),
      sandbox.run(["audit", "--json", "--since", "1h"]),
      sandbox.run(["audit", "--json", "--since", "2999-01-01T00:00:00Z"]),
      sandbox.run(["audit", "--json", "--since", "2000-01-01"]),
      sandbox.run(["audit", "--json", "--tail", "2"]),
      sandbox.run(["audit", "--since", "yesterday"]),
      sandbox.run(["audit", "--tail", "-3"]),
    ]);
    const runEvents = parseLines(byRun.stdout);
    expect(runEvents.length).toBeGreaterThan(1);
    expect(runEvents.every((event) => event.runId === held)).toBe(true);
    const toolEvents = parseLines(byTool.stdout);
    expect(toolEvents.length).toBeGreaterThan(1);
    expect(toolEvents.every((event) => event.toolName === "read_file" && event.runId === local)).toBe(true);
    expect(parseLines(recent.stdout)).toEqual(all);
    expect(parseLines(past.stdout)).toEqual(all);
    expect(future.code).toBe(0);
    expect(future.stdout).toBe("");
    expect(parseLines(tail.stdout)).toEqual(all.slice(-2));
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("--since takes a duration");
    expect(badTail.code).toBe(2);
  });

  test("--follow starts at the end: only events written after it started", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const { held, local } = await makeHistory(sandbox);
    const follower = sandbox.start(["audit", "--json", "--follow"]);
    // It has no "ready" signal: call until one call's events show up (the first may predate the count).
    let seen: string | undefined;
    for (let attempt = 0; attempt < 5 && seen === undefined; attempt += 1) {
      const call = await sandbox.run(["call", "read_file", "--input", '{"path":"note.txt"}', "--json"]);
      const runId = String(parseSingleJson(call.stdout).runId);
      seen = await waitFor(
        "the new call's events",
        () => follower.stdout().includes(runId) && runId,
        3_000,
      ).catch(() => undefined);
    }
    follower.child.kill("SIGINT");
    const result = await follower.exited;
    expect(result.code).toBe(130);
    expect(seen).toBeDefined();
    const runIds = parseLines(result.stdout).map((event) => event.runId);
    expect(runIds).not.toContain(held);
    expect(runIds).not.toContain(local);
  });

  test("approvals list --pending shows only requests waiting for a decision", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const { requestId } = await makeHistory(sandbox);
    const second = await sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"two"}', "--json"]);
    const denied = waitingIds(second.stdout).requestId;
    expect((await sandbox.run(["approvals", "deny", denied])).code).toBe(0);
    const [pending, everything, human] = await Promise.all([
      sandbox.run(["approvals", "list", "--pending", "--json"]),
      sandbox.run(["approvals", "list", "--json"]),
      sandbox.run(["approvals", "list", "--pending"]),
    ]);
    const ids = (result: { stdout: string }) =>
      (parseSingleJson(result.stdout) as { approvals: { id: string }[] }).approvals.map(
        (record) => record.id,
      );
    expect(ids(pending)).toEqual([requestId]);
    expect(ids(everything).sort()).toEqual([requestId, denied].sort());
    expect(human.stdout).toContain(requestId);
    expect(human.stdout).not.toContain(denied);
  });
});
