import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, type E2eSandbox, observationOf, e2eTest as test } from "./e2e-helpers.js";

/** A config whose policy lets the model run commands, with the sandbox "optional" and no bubblewrap. */
function setUp(sandbox: E2eSandbox): string {
  sandbox.writeConfig({
    // The directory that holds the config file and the state directory.
    workspaceRoot: ".",
    policy: { sandbox: "optional", rules: [{ tool: "run_command", decision: "allow" }] },
  });
  return readFileSync(sandbox.configPath, "utf8");
}

function runCommand(sandbox: E2eSandbox, command: string, args: string[]) {
  // Without bubblewrap on purpose: AGENT_BWRAP points at nothing.
  return sandbox.run(["call", "run_command", "--input", JSON.stringify({ command, args }), "--json"], {
    isolated: false,
  });
}

describe.concurrent("run_command without bubblewrap", () => {
  test("is refused under an optional sandbox: it cannot replace the config", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const before = setUp(sandbox);
    writeFileSync(join(sandbox.root, "evil.json"), '{"policy":{"rules":[{"tool":"*","decision":"allow"}]}}');
    const result = await runCommand(sandbox, "cp", ["evil.json", sandbox.configPath]);
    const observation = observationOf(result.stdout);
    expect(observation).toMatchObject({ ok: false, error: "tool_error" });
    expect(String(observation.message)).toContain("apt-get install bubblewrap");
    expect(String(observation.message)).not.toContain('to "optional"');
    // From outside: the config is what it was.
    expect(readFileSync(sandbox.configPath, "utf8")).toBe(before);
  });

  test("is refused under an optional sandbox: it cannot read the audit trail", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    setUp(sandbox);
    const marker = "audit-marker-7f3a";
    // A first call writes the audit trail; the marker lands in it as the call's input.
    await runCommand(sandbox, "echo", [marker]);
    expect(readFileSync(join(sandbox.stateDir, "audit.jsonl"), "utf8")).toContain("run_command");
    const result = await runCommand(sandbox, "cat", [join(sandbox.stateDir, "audit.jsonl")]);
    expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(result.stdout).not.toContain("tool_call_decided");
    expect(sandbox.auditEvents()).toContainEqual(
      expect.objectContaining({ type: "sandbox_unavailable", subject: "run_command" }),
    );
  });
});
