import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  parseSingleJson,
  e2eTest as test,
  waitFor,
  waitingIds,
} from "./e2e-helpers.js";

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

const LOOKUP_SCHEMA = {
  type: "object",
  properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1 } },
  required: ["query"],
};
// A typed map: strict function calling cannot express it.
const TAGGED_SCHEMA = {
  type: "object",
  properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
};

describe.concurrent("agent tools", () => {
  test("--format openai: the strict variant where the schema allows it, the original otherwise", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      mcpServers: {
        s: sandbox.scriptableServer("s", {
          tools: [
            { name: "lookup", description: "Looks up.", inputSchema: LOOKUP_SCHEMA },
            { name: "tagged", description: "Tags.", inputSchema: TAGGED_SCHEMA },
          ],
        }),
      },
    });
    const [openai, anthropic, own] = await Promise.all([
      sandbox.run(["tools", "--format", "openai"]),
      sandbox.run(["tools", "--format", "anthropic"]),
      sandbox.run(["tools", "--format", "json"]),
    ]);
    for (const result of [openai, anthropic, own]) expect(result.code, result.stderr).toBe(0);

    type OpenAiTool = {
      type: string;
      function: { name: string; description: string; parameters: Schema; strict: boolean };
    };
    const tools = JSON.parse(openai.stdout) as OpenAiTool[];
    const byName = new Map(tools.map((tool) => [tool.function.name, tool]));
    expect(tools.every((tool) => tool.type === "function")).toBe(true);
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        "read_file",
        "list_directory",
        "write_file",
        "mcp__s__lookup",
        "mcp__s__tagged",
      ]),
    );

    // Compatible: every property required, the optional ones nullable, objects closed.
    for (const name of ["read_file", "list_directory", "write_file", "mcp__s__echo", "mcp__s__lookup"]) {
      const tool = byName.get(name);
      expect(tool?.function.strict, name).toBe(true);
      const parameters = tool?.function.parameters as Schema;
      expect(parameters.additionalProperties, name).toBe(false);
      expect([...(parameters.required ?? [])].sort(), name).toEqual(
        Object.keys(parameters.properties ?? {}).sort(),
      );
    }
    const lookup = byName.get("mcp__s__lookup")?.function;
    expect(lookup?.description).toBe("Looks up.");
    expect(lookup?.parameters.properties?.query?.type).toBe("string");
    expect(lookup?.parameters.properties?.limit?.type).toEqual(["integer", "null"]);
    expect(byName.get("read_file")?.function.parameters.properties?.maxBytes?.type).toEqual([
      "integer",
      "null",
    ]);

    // Incompatible: not strict, and the model is told the schema the validator enforces.
    const tagged = byName.get("mcp__s__tagged")?.function;
    expect(tagged?.strict).toBe(false);
    expect(tagged?.parameters.properties?.labels?.additionalProperties).toEqual({ type: "string" });

    // Anthropic takes the original (non-strict) schema.
    const anthropicTools = JSON.parse(anthropic.stdout) as {
      name: string;
      description: string;
      input_schema: Schema;
    }[];
    const anthropicLookup = anthropicTools.find((tool) => tool.name === "mcp__s__lookup");
    expect(anthropicLookup?.description).toBe("Looks up.");
    expect(anthropicLookup?.input_schema.required).toEqual(["query"]);
    expect(anthropicLookup?.input_schema.properties?.limit?.type).toBe("integer");

    // Our own form carries what the registry knows.
    const ownTools = JSON.parse(own.stdout) as Record<string, unknown>[];
    expect(ownTools.find((tool) => tool.name === "read_file")).toMatchObject({
      effect: "read",
      group: null,
      strict: true,
    });
    expect(ownTools.find((tool) => tool.name === "write_file")).toMatchObject({ effect: "write" });
    expect(ownTools.find((tool) => tool.name === "mcp__s__tagged")).toMatchObject({
      effect: "external",
      group: "mcp:s",
      strict: { compatible: false, reason: expect.stringContaining("labels") },
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});

/** Makes some history: an allowed call and a held one. */
async function makeHistory(sandbox: E2eSandbox): Promise<{ allowedRun: string; heldRun: string }> {
  sandbox.writeConfig({
    policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
    mcpServers: { s: sandbox.scriptableServer("s") },
  });
  const [allowed, held] = await Promise.all([
    sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"audited"}', "--json"]),
    sandbox.run(["call", "mcp__s__env", "--json"]),
  ]);
  expect(allowed.code).toBe(0);
  expect(held.code).toBe(3);
  expect(observationOf(allowed.stdout)).toMatchObject({ ok: true });
  return {
    allowedRun: String(parseSingleJson(allowed.stdout).runId),
    heldRun: waitingIds(held.stdout).runId,
  };
}

/** The complete lines of `stdout` so far (a last line without its newline is still being written). */
function completeLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function parseLines(stdout: string): Record<string, unknown>[] {
  expect(stdout.endsWith("\n")).toBe(true);
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.concurrent("agent audit", () => {
  test("--json prints one parseable event per line; --verbose one line per event; the story one per step", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const { allowedRun, heldRun } = await makeHistory(sandbox);
    const [json, human, story] = await Promise.all([
      sandbox.run(["audit", "--json"]),
      sandbox.run(["audit", "--verbose"]),
      sandbox.run(["audit"]),
    ]);

    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    const events = parseLines(json.stdout);
    const fileLines = readFileSync(join(sandbox.stateDir, "audit.jsonl"), "utf8").trim().split("\n");
    expect(events).toHaveLength(fileLines.length);
    for (const event of events) {
      expect(typeof event.type).toBe("string");
      expect(Number.isNaN(Date.parse(String(event.at)))).toBe(false);
    }
    const typesOf = (runId: string) =>
      events.filter((event) => event.runId === runId).map((event) => event.type);
    // Two records a governed call (event vocabulary 2), plus the approval's own record when held.
    expect(typesOf(allowedRun)).toEqual(["tool_call_decided", "tool_call_finished"]);
    expect(
      events.find((event) => event.runId === allowedRun && event.type === "tool_call_finished"),
    ).toMatchObject({
      server: "s",
      request: { server: "s", method: "tools/call", ok: true },
    });
    expect(typesOf(heldRun)).toEqual(["approval_requested", "tool_call_decided", "tool_call_finished"]);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["mcp_initialized", "mcp_tools_listed", "mcp_request_finished", "mcp_closed"]),
    );
    // The output of a call is not copied into the trail.
    expect(json.stdout).not.toContain("audited");

    expect(human.code).toBe(0);
    const humanLines = human.stdout.trimEnd().split("\n");
    expect(humanLines).toHaveLength(events.length);
    expect(humanLines.every((line) => /^\d{4}-\d{2}-\d{2}T\S+ {2}[a-z_]+ {2}/.test(line))).toBe(true);
    expect(humanLines).toContainEqual(
      expect.stringContaining(`tool_call_finished  server=s toolName=mcp__s__echo`),
    );

    // The story: the calls' steps, not the server's handshake or each of its requests.
    expect(story.code).toBe(0);
    const storyLines = story.stdout.trimEnd().split("\n");
    expect(storyLines.every((line) => /^\d\d:\d\d:\d\d {2}\S/.test(line))).toBe(true);
    expect(storyLines).toContainEqual(expect.stringMatching(/call mcp__s__echo \(\S+\) finished ok in /));
    expect(storyLines).toContainEqual(
      expect.stringMatching(/call mcp__s__env \(\S+\) held for approval, request apr_/),
    );
    expect(story.stdout).not.toContain("mcp_initialized");
    expect(storyLines.length).toBeLessThan(humanLines.length);
  });

  test("--follow --tail N prints the last N already there, then tails new events until Ctrl-C", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    await makeHistory(sandbox);
    const before = sandbox.auditEvents().length;
    const follower = sandbox.start(["audit", "--json", "--follow", "--tail", String(before)]);
    await waitFor("the existing events", () => completeLines(follower.stdout()).length >= before);

    const call = await sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"tailed"}', "--json"]);
    const runId = String(parseSingleJson(call.stdout).runId);
    await waitFor("the new call's events", () =>
      completeLines(follower.stdout()).some(
        (event) => event.type === "tool_call_finished" && event.runId === runId,
      ),
    );

    follower.child.kill("SIGINT");
    const result = await follower.exited;
    expect(result.code).toBe(130);
    const events = parseLines(result.stdout);
    expect(events.length).toBeGreaterThan(before);
    expect(events.filter((event) => event.runId === runId).map((event) => event.type)).toEqual([
      "tool_call_decided",
      "tool_call_finished",
    ]);
  });

  test("server-everything: its list_changed refresh, abandoned at close, leaves no cancelled tools/list", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // server-everything registers more tools once initialized and says so with list_changed: the
    // refresh that starts is often still under way when the short-lived CLI closes the server.
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__everything__echo", decision: "allow" }] },
      mcpServers: { everything: sandbox.everythingServer("everything", { wire: true }) },
    });
    for (const args of [
      ["mcp", "list"],
      ["mcp", "list", "--json"],
      ["call", "mcp__everything__echo", "--input", '{"message":"hi"}'],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, result.stderr).toBe(0);
    }
    const events = sandbox.auditEvents();
    const failed = events.filter((event) => event.type === "mcp_request_finished" && event.ok !== true);
    expect(failed).toEqual([]);
    expect(events.filter((event) => event.type === "mcp_server_failed")).toEqual([]);
    // The listing itself was made and recorded: only the abandoned one is left out.
    expect(events.filter((event) => event.method === "tools/list").length).toBeGreaterThanOrEqual(3);
    expect(sandbox.received("everything", "tools/list").length).toBeGreaterThanOrEqual(3);
  });
});
