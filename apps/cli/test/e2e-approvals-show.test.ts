import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  AS_INVOKED,
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  parseSingleJson,
  e2eTest as test,
  waitFor,
  waitingIds,
} from "./e2e-helpers.js";

// The attack: a huge first argument, so that the argument that matters falls out of view.
const PADDED = {
  content: `${"harmless ".repeat(10_000)}\u001b[2J`,
  path: "../../.bashrc-the-key-that-matters",
  createDirectories: true,
};

function configure(sandbox: E2eSandbox): void {
  sandbox.writeConfig({});
}

describe.concurrent("approvals show what they approve", () => {
  test("`approvals show` prints the whole canonical input and everything the digest binds", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const held = await sandbox.run(["call", "write_file", "--input", JSON.stringify(PADDED), "--json"]);
    expect(held.code, held.stderr).toBe(3);
    const { requestId } = waitingIds(held.stdout);

    const shown = await sandbox.run(["approvals", "show", requestId]);
    expect(shown.code, shown.stderr).toBe(0);
    // Every key, the padded value whole (escaped), and each bound field.
    expect(shown.stdout).toContain('"path":"../../.bashrc-the-key-that-matters"');
    expect(shown.stdout).toContain('"createDirectories":true');
    // Whole: every repetition, then the escape as JSON spells it (never raw).
    expect(shown.stdout.includes(`${"harmless ".repeat(10_000)}\\u001b[2J`)).toBe(true);
    expect(shown.stdout).not.toContain("\u001b[2J");
    expect(shown.stdout).toContain(`cwd (real path)  ${realpathSync(sandbox.workspace)}`);
    expect(shown.stdout).toMatch(/network\s+deny/);
    expect(shown.stdout).toContain("(verified: the fields shown hash to it)");

    const json = parseSingleJson((await sandbox.run(["approvals", "show", requestId, "--json"])).stdout);
    const binding = json.binding as Record<string, unknown>;
    expect(binding).toMatchObject({
      toolName: "write_file",
      input: PADDED,
      cwd: realpathSync(sandbox.workspace),
      network: "deny",
      digestVerified: true,
      source: "request",
    });
    expect(binding.toolFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(binding.actionDigest).toBe((json.approval as Record<string, unknown>).actionDigest);

    // The list's summary is cut, but never loses a key to the padding.
    const listed = parseSingleJson((await sandbox.run(["approvals", "list", "--json"])).stdout);
    const [record] = listed.approvals as { summary: string; inputPreview: string }[];
    for (const text of [record?.summary ?? "", record?.inputPreview ?? ""]) {
      expect(text).toContain('"path":"../../.bashrc-the-key-that-matters"');
      expect(text).toContain('"createDirectories":true');
      expect(text).toContain("every key kept");
    }

    const missing = await sandbox.run(["approvals", "show", "apr_nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No approval request has id "apr_nope"');
  });

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "the terminal prompt shows every key of a padded input, and says it was cut",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configure(sandbox);
      const agent = sandbox.start(["call", "write_file", "--input", JSON.stringify(PADDED)], {
        terminal: true,
        stdin: true,
      });
      await waitFor("the approval prompt", () =>
        agent.stdout().includes("Approve this exact call once? [y/N]"),
      );
      agent.child.stdin?.write("n\n");
      const result = await agent.exited;
      const screen = result.stdout;
      expect(screen).toContain('"path":"../../.bashrc-the-key-that-matters"');
      expect(screen).toContain('"createDirectories":true');
      expect(screen).toContain("cut: long values shortened, every key kept");
      expect(screen).toContain(`${AS_INVOKED} approvals show`);
      expect(screen).not.toContain("\u001b[2J");
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "an open prompt notices an approval given elsewhere, stops asking, and says which decision won",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configure(sandbox);
      const agent = sandbox.start(
        ["call", "write_file", "--input", JSON.stringify({ path: "elsewhere.txt", content: "ok" })],
        { terminal: true, stdin: true },
      );
      await waitFor("the approval prompt", () =>
        agent.stdout().includes("Approve this exact call once? [y/N]"),
      );
      const list = parseSingleJson((await sandbox.run(["approvals", "list", "--json"])).stdout);
      const [request] = list.approvals as { id: string }[];
      expect((await sandbox.run(["approvals", "approve", String(request?.id)])).code).toBe(0);
      // Nobody answers the prompt: it must end by itself.
      const result = await agent.exited;
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toContain(`request ${request?.id} was approved elsewhere`);
      expect(sandbox.auditEvents().filter((event) => event.type === "approval_consumed")).toHaveLength(1);
      expect(existsSync(join(sandbox.workspace, "elsewhere.txt"))).toBe(true);
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "an open prompt notices a denial given elsewhere, and the call does not run",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configure(sandbox);
      const agent = sandbox.start(
        ["call", "write_file", "--input", JSON.stringify({ path: "denied.txt", content: "no" })],
        { terminal: true, stdin: true },
      );
      await waitFor("the approval prompt", () =>
        agent.stdout().includes("Approve this exact call once? [y/N]"),
      );
      const list = parseSingleJson((await sandbox.run(["approvals", "list", "--json"])).stdout);
      const [request] = list.approvals as { id: string }[];
      expect((await sandbox.run(["approvals", "deny", String(request?.id)])).code).toBe(0);
      const result = await agent.exited;
      expect(result.code, result.stdout).toBe(1);
      expect(result.stdout).toContain(`request ${request?.id} was denied elsewhere`);
      expect(result.stdout).toContain("policy_denied");
      expect(existsSync(join(sandbox.workspace, "denied.txt"))).toBe(false);
    },
  );
});
