import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import {
  assertNoProcessesAlive,
  isProcessAlive,
  legacyServerPath,
  MISBEHAVING_SERVERS,
  misbehavingServerPath,
  parseServerRecords,
  processGroupMembers,
  processTreeOf,
  scriptableServerPath,
  sseServerPath,
  testServerCommand,
} from "@agent/mcp-testing/servers";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { describe, expect, it, onTestFinished } from "vitest";
import { waitForProcessesGone } from "../src/servers/process-tree.js";

describe("test server scripts", () => {
  it("exist and parse for every name", async () => {
    const paths = [
      ...MISBEHAVING_SERVERS.map(misbehavingServerPath),
      scriptableServerPath(),
      legacyServerPath(),
      sseServerPath(),
    ];
    for (const path of paths) expect(existsSync(path)).toBe(true);
    // One `node --check` each, all at once: on a loaded machine, one after the other adds up.
    const statuses = await Promise.all(
      paths.map(
        (path) =>
          new Promise<number | null>((resolve) => {
            spawn(process.execPath, ["--check", path], { stdio: "ignore" }).on("exit", resolve);
          }),
      ),
    );
    expect(statuses).toEqual(paths.map(() => 0));
    expect(testServerCommand("hang-call")).toEqual({
      command: process.execPath,
      args: [misbehavingServerPath("hang-call")],
    });
    expect(() => misbehavingServerPath("nope" as never)).toThrow(/Unknown misbehaving server "nope"/);
  });

  it("parses records out of mixed stderr, skipping partial lines", () => {
    const stderr = [
      'ing {"event":"cut"',
      "some log line",
      'mcp-testing {"event":"cancelled","requestId":3}',
      'mcp-testing {"event":"grandchild","pid":42}',
      "mcp-testing not json",
    ].join("\n");
    expect(parseServerRecords(stderr)).toEqual([
      { event: "cancelled", requestId: 3 },
      { event: "grandchild", pid: 42 },
    ]);
  });
});

describe("scriptable server", () => {
  it("serves the tools configured in MCP_TESTING_TOOLS with their schemas as given", async () => {
    const inputSchema = {
      type: "object",
      properties: { q: { type: "string", minLength: 2 } },
      required: ["q"],
    };
    const transport = createStdioTransport({
      ...testServerCommand("scriptable"),
      env: {
        MCP_TESTING_TOOLS: JSON.stringify([
          { name: "search", description: "Finds", inputSchema, result: "found" },
        ]),
      },
    });
    onTestFinished(() => transport.close());
    const signal = new AbortController().signal;
    const init = await transport.request(
      "initialize",
      { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } },
      signal,
    );
    expect(init.ok).toBe(true);
    const list = await transport.request("tools/list", {}, signal);
    const tools = list.ok ? (list.result as { tools: { name: string; inputSchema: unknown }[] }).tools : [];
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "slow", "env", "fail", "search"]);
    expect(tools.find((tool) => tool.name === "search")?.inputSchema).toEqual(inputSchema);
    const call = await transport.request("tools/call", { name: "search", arguments: { q: "x" } }, signal);
    expect(call).toMatchObject({ ok: true, result: { content: [{ type: "text", text: "found" }] } });
    const failed = await transport.request("tools/call", { name: "fail", arguments: {} }, signal);
    expect(failed).toMatchObject({ ok: true, result: { isError: true } });
  });
});

describe("process helpers", () => {
  it("finds a process tree and its group, and sees it gone after a group kill", async () => {
    // A detached shell (its own group) with a background child: a server and its grandchild.
    const shell = spawn("sh", ["-c", "sleep 30 & wait"], { detached: true, stdio: "ignore" });
    const pid = shell.pid as number;
    onTestFinished(() => {
      if (isProcessAlive(pid)) process.kill(-pid, "SIGKILL");
    });
    const tree = await waitForTree(pid, 2);
    expect(processGroupMembers(pid).sort()).toEqual([...tree].sort());
    await expect(assertNoProcessesAlive(tree, 50)).rejects.toThrow(/still alive/);
    process.kill(-pid, "SIGKILL");
    await assertNoProcessesAlive(tree);
    expect(await waitForProcessesGone(tree, 10)).toEqual([]);
  });
});

async function waitForTree(pid: number, size: number): Promise<number[]> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const tree = processTreeOf(pid);
    if (tree.length >= size) return tree;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the process tree never grew");
}
