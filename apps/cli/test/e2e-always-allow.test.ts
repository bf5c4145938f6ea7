import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, mcpCall, setUpAgent } from "./e2e-agent-helpers.js";
import {
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  type RunningAgent,
  e2eTest as test,
  waitFor,
} from "./e2e-helpers.js";

/** The escape sequences this CLI itself uses for style (the diff's added lines are green). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching our own ANSI codes.
const OWN_STYLE = /\u001b\[(1|2|22|31|32|33|39)m/g;

const QUESTION = "Approve this exact call once? [y/N] (or a: always allow this tool)";
const CONFIRM = "? [y/N]";

/** Raw control and bidirectional characters, other than newline, tab and the pty's carriage returns. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A configuration as a person writes it (not as JSON.stringify would): four-space indentation,
 * a server entry on one line, a number spelled 1.5e4, no final newline. An edit must keep all that.
 */
function handWritten(sandbox: E2eSandbox, rules: string[]): string {
  const server = JSON.stringify(sandbox.scriptableServer("s", { wire: true }));
  const text = [
    "{",
    '    "workspaceRoot": "workspace",',
    '    "toolTimeoutMs": 1.5e4,',
    `    "mcpServers": { "s": ${server} },`,
    '    "policy": {',
    '        "sandbox": "optional",',
    '        "rules": [',
    rules.map((rule) => `            ${rule}`).join(",\n"),
    "        ]",
    "    }",
    "}",
  ].join("\n");
  writeFileSync(sandbox.configPath, text);
  return text;
}

const ECHO_RULE = '{ "tool": "mcp__s__echo", "decision": "allow" }';
const OTHER_RULE = '{ "tool": "mcp__s__other", "decision": "allow" }';

function startEcho(sandbox: E2eSandbox, message: string): RunningAgent {
  return sandbox.start(["call", "mcp__s__echo", "--input", JSON.stringify({ message })], {
    terminal: true,
    stdin: true,
  });
}

/** Waits until `text` has appeared `times` times on the terminal, then types `answer`. */
async function answerAt(agent: RunningAgent, text: string, answer: string, times = 1): Promise<void> {
  await waitFor(`"${text}" (${times}x)`, () => agent.stdout().split(text).length > times);
  agent.child.stdin?.write(answer);
}

function voidedEvents(sandbox: E2eSandbox): Record<string, unknown>[] {
  return sandbox.auditEvents().filter((event) => event.type === "approval_voided");
}

// Every test here answers a prompt, which needs a terminal.
const terminalTest = test.skipIf(!CAN_RUN_IN_TERMINAL);

describe.concurrent("always allow this tool, at the prompt", () => {
  terminalTest(
    "shows the diff, writes the exact rule in place, runs the call; the next call needs no prompt",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      const before = handWritten(sandbox, [OTHER_RULE]);
      const agent = startEcho(sandbox, "always");
      await answerAt(agent, QUESTION, "a\n");
      await answerAt(agent, CONFIRM, "y\n", 2);
      const first = await agent.exited;

      expect(first.code, first.stdout).toBe(0);
      // The change, as a diff of the file: the line that gains a comma, the new rule, a little context.
      const screen = first.stdout.replaceAll("\r\n", "\n").replace(OWN_STYLE, "");
      expect(screen).toContain(
        [
          "@@ -6,5 +6,6 @@",
          '         "sandbox": "optional",',
          '         "rules": [',
          `-            ${OTHER_RULE}`,
          `+            ${OTHER_RULE},`,
          `+            ${ECHO_RULE}`,
          "         ]",
          "     }",
        ].join("\n"),
      );
      // (The test servers' record files are configured literally, so their directory is redacted as a secret.)
      expect(screen).toMatch(/\n--- \S*agent\.config\.json\n\+\+\+ \S*agent\.config\.json\n@@ /);
      expect(screen).toMatch(/Write this rule to \S*agent\.config\.json\? \[y\/N\]/);
      expect(screen).toContain('{"message":"always"}');
      expect(UNSAFE.test(screen), JSON.stringify(screen)).toBe(false);
      // Byte for byte the file it was, with the one rule inserted; no temporary file left beside it.
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(
        before.replace(OTHER_RULE, `${OTHER_RULE},\n            ${ECHO_RULE}`),
      );
      expect(readdirSync(sandbox.root).filter((name) => name.endsWith(".tmp"))).toEqual([]);

      // The held request was voided, saying why, not approved once; the call passed the gate by policy.
      const [voided] = voidedEvents(sandbox);
      // The void records which OS user took that decision, like a grant or a denial would.
      expect(voided?.decidedBy).toEqual(expect.any(String));
      expect(voided?.reason).toContain(
        `superseded: the operator added the rule ${ECHO_RULE.replaceAll(" ", "")}`,
      );
      const list = await sandbox.run(["approvals", "list", "--json"]);
      const { approvals } = JSON.parse(list.stdout) as { approvals: { status: string }[] };
      expect(approvals.map((approval) => approval.status)).toEqual(["voided"]);
      expect(sandbox.auditEvents().some((event) => event.type === "approval_granted")).toBe(false);

      // A second call, on no terminal at all: it runs, nothing is held.
      const second = await sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"again"}']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe('{"message":"again"}\n');
      expect(sandbox.received("s", "tools/call")).toHaveLength(2);
    },
  );

  terminalTest(
    "'n' at the confirmation writes nothing and asks the first question again",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      const before = handWritten(sandbox, [OTHER_RULE]);
      const agent = startEcho(sandbox, "declined");
      await answerAt(agent, QUESTION, "a\n");
      await answerAt(agent, CONFIRM, "n\n", 2);
      // Back at the first question, which is answered "deny" this time.
      await answerAt(agent, QUESTION, "n\n", 2);
      const result = await agent.exited;

      expect(result.stdout).toContain("agent: nothing was written.");
      expect(result.code, result.stdout).toBe(1);
      expect(result.stdout).toContain("policy_denied");
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(before);
      expect(sandbox.received("s", "tools/call")).toEqual([]);
    },
  );

  terminalTest(
    "a file changed on disk while the diff was shown is not written; the question comes back",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      handWritten(sandbox, [OTHER_RULE]);
      const agent = startEcho(sandbox, "raced");
      await answerAt(agent, QUESTION, "a\n");
      await waitFor("the confirmation", () => agent.stdout().includes("Write this rule to"));
      // Someone edits the file in another window meanwhile.
      const edited = handWritten(sandbox, [OTHER_RULE, '{ "tool": "mcp__s__third", "decision": "ask" }']);
      await answerAt(agent, CONFIRM, "y\n", 2);
      await answerAt(agent, QUESTION, "n\n", 2);
      const result = await agent.exited;

      expect(result.stdout).toMatch(
        /agent: \S*agent\.config\.json changed on disk since it was read; nothing was written\./,
      );
      expect(result.code, result.stdout).toBe(1);
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(edited);
      expect(voidedEvents(sandbox)).toEqual([]);
      expect(sandbox.received("s", "tools/call")).toEqual([]);
    },
  );

  terminalTest(
    "a deny rule for the tool, an ask rule matching it, or Claude Code's .mcp.json: refused, file unchanged",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      // A deny rule written while the prompt is open (the call was held under the file as it was).
      handWritten(sandbox, [OTHER_RULE]);
      const denied = startEcho(sandbox, "denied");
      await waitFor("the approval prompt", () => denied.stdout().includes(QUESTION));
      const withDeny = handWritten(sandbox, [
        OTHER_RULE,
        '{ "tool": "mcp__s__echo", "decision": "deny", "reason": "not this one" }',
      ]);
      denied.child.stdin?.write("a\n");
      await answerAt(denied, QUESTION, "n\n", 2);

      // Claude Code's project file without a policy of ours, asked about a local tool.
      const otherState = join(sandbox.root, "other-state");
      writeFileSync(join(sandbox.workspace, ".mcp.json"), '{ "mcpServers": {} }\n');
      const claude = sandbox.start(
        [
          "--config",
          join(sandbox.workspace, ".mcp.json"),
          "--state-dir",
          otherState,
          "call",
          "write_file",
          "--input",
          '{"path":"x.txt","content":"x"}',
        ],
        { bare: true, terminal: true, stdin: true },
      );
      await answerAt(claude, QUESTION, "a\n");
      await answerAt(claude, QUESTION, "n\n", 2);
      const [deniedResult, claudeResult] = await Promise.all([denied.exited, claude.exited]);

      const deniedScreen = deniedResult.stdout.replaceAll("\r\n", "\n");
      expect(deniedScreen).toMatch(
        /agent: cannot always allow mcp__s__echo: the rule \{"tool":"mcp__s__echo","decision":"deny"\} in \S*agent\.config\.json denies it, and an answer at a prompt never overrides a deny/,
      );
      expect(deniedScreen).not.toContain("Write this rule to");
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(withDeny);
      expect(deniedResult.code, deniedScreen).toBe(1);

      expect(claudeResult.stdout).toContain('is Claude Code\'s project file and holds no "policy" of ours');
      expect(claudeResult.stdout).toContain("agent.config.json");
      expect(readFileSync(join(sandbox.workspace, ".mcp.json"), "utf8")).toBe('{ "mcpServers": {} }\n');
      expect(claudeResult.code, claudeResult.stdout).toBe(1);
      expect(readdirSync(sandbox.workspace).sort()).toEqual([".mcp.json"]);
    },
  );

  terminalTest(
    "an ask rule matching the tool makes an allow rule useless: refused, explained, nothing written",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      const before = handWritten(sandbox, ['{ "tool": "mcp__s__*", "decision": "ask" }']);
      const agent = startEcho(sandbox, "asked");
      await answerAt(agent, QUESTION, "a\n");
      await answerAt(agent, QUESTION, "y\n", 2);
      const result = await agent.exited;

      expect(result.stdout).toContain("among matching rules ask beats allow");
      // Approving once still works after the refusal.
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toContain('{"message":"asked"}');
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(before);
    },
  );

  terminalTest(
    "in an agent run: the rule is written, the held call runs, the model's next call of the tool is not held",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      const server = await setUpAgent(
        sandbox,
        "openai",
        [
          toolCallTurn([mcpCall("tc_1", "echo", { message: "one" })]),
          toolCallTurn([mcpCall("tc_2", "echo", { message: "two" })]),
          textTurn("Both echoed."),
        ],
        // Trusted: the echo's result must not taint the run, or the flow guard holds the next call.
        { mcpServers: { s: { ...sandbox.scriptableServer("s", { wire: true }), trust: "trusted" } } },
      );
      try {
        const agent = sandbox.start(["run", "echo twice"], {
          terminal: true,
          stdin: true,
          env: agentEnv("openai"),
        });
        await answerAt(agent, QUESTION, "a\n");
        await answerAt(agent, CONFIRM, "y\n", 2);
        const result = await agent.exited;

        expect(result.code, result.stdout).toBe(0);
        expect(result.stdout).toContain("Both echoed.");
        // Asked once: the second call passed the gate under the new rule.
        expect(result.stdout.split(QUESTION)).toHaveLength(2);
        expect(sandbox.received("s", "tools/call").map((record) => record.params)).toEqual([
          expect.objectContaining({ arguments: { message: "one" } }),
          expect.objectContaining({ arguments: { message: "two" } }),
        ]);
        const written = JSON.parse(readFileSync(sandbox.configPath, "utf8")) as {
          policy: { rules: unknown[] };
        };
        expect(written.policy.rules).toEqual([{ tool: "mcp__s__echo", decision: "allow" }]);
      } finally {
        await server.close();
      }
    },
  );
});
