import { describe, expect } from "vitest";
import {
  AS_INVOKED,
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  e2eTest as test,
  waitFor,
} from "./e2e-helpers.js";

// What a hostile or careless server might put in its text: colors, a screen clear, a window-title
// change ending in BEL, a carriage return that hides what came before, and a bidirectional override.
const HOSTILE_DESCRIPTION =
  "Harmless \u001b[35mmagenta\u001b[0m \u001b]0;pwned\u0007 \r hidden \u202eexe.txt";
const HOSTILE_ANSWER = "answer \u001b[2J\u001b[H cleared \u0007 done \r\u202e";

/** Raw control and bidirectional characters, other than newline and tab. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The escape sequences this CLI itself uses for style; anything else raw on a terminal is a leak. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching our own ANSI codes.
const OWN_STYLE = /\u001b\[(1|2|22|31|32|33|39)m/g;

// Content blocks whose URIs and MIME types try the same: a window title (OSC ... BEL), a screen
// clear, a color, a C1 CSI and bidirectional isolates and overrides.
const HOSTILE_URI = "file:///x\u001b]0;pwned\u0007\u001b[2J\u202eexe.txt";
const HOSTILE_MIME = "text/\u001b[31mred\u009b2J\u2066";
const HOSTILE_BLOCKS = [
  { type: "resource_link", name: "link", uri: HOSTILE_URI, mimeType: HOSTILE_MIME },
  { type: "resource", resource: { uri: HOSTILE_URI, mimeType: HOSTILE_MIME, text: "embedded" } },
];
const ESCAPED_URI = "file:///x\\x1b]0;pwned\\x07\\x1b[2J\\u202eexe.txt";
const ESCAPED_MIME = "text/\\x1b[31mred\\x9b2J\\u2066";

function configureHostile(sandbox: E2eSandbox): void {
  sandbox.writeConfig({
    policy: { rules: [{ tool: "mcp__s__evil", decision: "allow" }] },
    mcpServers: {
      s: sandbox.scriptableServer("s", {
        wire: true,
        tools: [{ name: "evil", description: HOSTILE_DESCRIPTION, result: HOSTILE_ANSWER }],
      }),
    },
  });
}

describe.concurrent("human output and server-provided text", () => {
  test("control characters from a server's description, answer or a call's input are escaped", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configureHostile(sandbox);
    const [list, answer, held] = await Promise.all([
      sandbox.run(["mcp", "list"]),
      sandbox.run(["call", "mcp__s__evil"]),
      sandbox.run(["call", "mcp__s__echo", "--input", JSON.stringify({ message: "\u001b[31mred\u202e" })]),
    ]);
    const approvals = await sandbox.run(["approvals", "list"]);

    expect(list.code).toBe(0);
    // The table shows the description on one line (whitespace, the \r included, collapsed), escaped.
    expect(list.stdout).toContain(
      "Harmless \\x1b[35mmagenta\\x1b[0m \\x1b]0;pwned\\x07 hidden \\u202eexe.txt",
    );
    expect(answer.code).toBe(0);
    expect(answer.stdout).toBe("answer \\x1b[2J\\x1b[H cleared \\x07 done \\x0d\\u202e\n");
    expect(approvals.code).toBe(0);
    // The summary shows the input as JSON, escapes and all.
    expect(approvals.stdout).toContain("[31mred");
    expect(held.code).toBe(3);
    expect(held.stderr).toContain(`${AS_INVOKED} approvals approve apr_`);
    for (const result of [list, answer, held, approvals]) {
      expect(UNSAFE.test(result.stdout + result.stderr), JSON.stringify(result)).toBe(false);
    }
  });

  test("content block URIs and MIME types from a server are escaped, in answers, errors and JSON", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__r__*", decision: "allow" }] },
      mcpServers: {
        r: sandbox.resultServer("r", {
          blocks: { content: HOSTILE_BLOCKS },
          broken: { content: HOSTILE_BLOCKS, isError: true },
        }),
      },
    });
    const [answer, error, json] = await Promise.all([
      sandbox.run(["call", "mcp__r__blocks"]),
      sandbox.run(["call", "mcp__r__broken"]),
      sandbox.run(["call", "mcp__r__blocks", "--json"]),
    ]);

    const described = [
      `[resource_link ${ESCAPED_MIME} ${ESCAPED_URI}]`,
      `[resource ${ESCAPED_URI} ${ESCAPED_MIME}]`,
      // An embedded resource's text follows the line that says what it is.
      "embedded",
    ];
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout.split("\n")).toEqual([...described, ""]);
    // A tool error shows the server's content too, on stderr.
    expect(error.code, error.stderr).toBe(1);
    expect(error.stderr).toContain(described.join("\n"));
    // JSON keeps the exact values, but spells what a terminal would act on as \u escapes.
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain("\\u009b2J\\u2066");
    const output = observationOf(json.stdout).output as { content: unknown[] };
    expect(output.content).toEqual(HOSTILE_BLOCKS);
    for (const result of [answer, error, json]) {
      expect(UNSAFE.test(result.stdout + result.stderr), JSON.stringify(result)).toBe(false);
    }
  });

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "on a terminal: color for our own labels only, server text still escaped; NO_COLOR turns color off",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configureHostile(sandbox);
      const [colored, plain] = await Promise.all([
        sandbox.run(["mcp", "list"], { terminal: true }),
        sandbox.run(["mcp", "list"], { terminal: true, env: { NO_COLOR: "1" } }),
      ]);

      expect(colored.code, colored.stdout).toBe(0);
      expect(colored.stdout).toContain("\u001b[32mready\u001b[39m");
      expect(colored.stdout).toContain("\\x1b[35mmagenta");
      // With our own codes taken out, nothing unsafe remains (the terminal turns \n into \r\n).
      const rest = colored.stdout.replace(OWN_STYLE, "").replaceAll("\r\n", "\n");
      expect(UNSAFE.test(rest), JSON.stringify(rest)).toBe(false);

      expect(plain.code, plain.stdout).toBe(0);
      expect(plain.stdout).toContain("ready");
      expect(plain.stdout).not.toContain("\u001b");
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "on a terminal a held call asks; 'y' runs it once, anything else denies it",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configureHostile(sandbox);
      const start = (message: string) =>
        sandbox.start(["call", "mcp__s__echo", "--input", JSON.stringify({ message })], {
          terminal: true,
          stdin: true,
        });
      const [yes, no] = [start("approved at the prompt"), start("refused at the prompt")];
      for (const [agent, answer] of [
        [yes, "y\n"],
        [no, "n\n"],
      ] as const) {
        await waitFor("the approval prompt", () =>
          agent.stdout().includes("Approve this exact call once? [y/N]"),
        );
        expect(agent.stdout()).toContain("mcp__s__echo (external)");
        agent.child.stdin?.write(answer);
      }
      const [approved, refused] = await Promise.all([yes.exited, no.exited]);

      expect(approved.code, approved.stdout).toBe(0);
      expect(approved.stdout).toContain('{"message":"approved at the prompt"}');
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stdout).toContain("policy_denied");
      expect(sandbox.received("s", "tools/call").map((record) => record.params)).toEqual([
        expect.objectContaining({ arguments: { message: "approved at the prompt" } }),
      ]);
      const decisions = sandbox
        .auditEvents()
        .filter((event) =>
          ["approval_granted", "approval_denied", "approval_consumed"].includes(String(event.type)),
        )
        .map((event) => event.type)
        .sort();
      expect(decisions).toEqual(["approval_consumed", "approval_denied", "approval_granted"]);
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "Ctrl-C at the approval prompt exits 130 and leaves the run resumable",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configureHostile(sandbox);
      const agent = sandbox.start(["call", "mcp__s__echo", "--input", '{"message":"later"}'], {
        terminal: true,
        stdin: true,
      });
      await waitFor("the approval prompt", () =>
        agent.stdout().includes("Approve this exact call once? [y/N]"),
      );
      // Ctrl-C typed at the terminal: the line discipline sends SIGINT to the foreground process group.
      agent.child.stdin?.write("\u0003");
      const interrupted = await agent.exited;
      expect(interrupted.code, interrupted.stdout).toBe(130);

      const list = await sandbox.run(["approvals", "list", "--json"]);
      const [request] = (
        JSON.parse(list.stdout) as { approvals: { id: string; runId: string; status: string }[] }
      ).approvals;
      expect(request?.status).toBe("pending");
      expect((await sandbox.run(["approvals", "approve", String(request?.id)])).code).toBe(0);

      // Nothing runs that call any more, so it must be resumable.
      const resumed = await sandbox.run(["resume", String(request?.runId)]);
      expect(resumed.stderr).toBe("");
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toBe('{"message":"later"}\n');
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "a prompt answered after the request was approved from another process does not strand the run",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      configureHostile(sandbox);
      const agent = sandbox.start(["call", "mcp__s__echo", "--input", '{"message":"both"}'], {
        terminal: true,
        stdin: true,
      });
      await waitFor("the approval prompt", () =>
        agent.stdout().includes("Approve this exact call once? [y/N]"),
      );
      // Meanwhile someone follows the printed hint in another shell.
      const list = await sandbox.run(["approvals", "list", "--json"]);
      const [request] = (JSON.parse(list.stdout) as { approvals: { id: string; runId: string }[] }).approvals;
      expect((await sandbox.run(["approvals", "approve", String(request?.id)])).code).toBe(0);
      agent.child.stdin?.write("y\n");
      await agent.exited;

      // The prompting process used the grant given elsewhere: the call ran once, the run is complete
      // (never left "running"), and resuming it is refused rather than running it again.
      const resumed = await sandbox.run(["resume", String(request?.runId), "--json"]);
      expect(resumed.stderr).not.toContain("is running in process");
      expect(resumed.code, resumed.stderr).toBe(2);
      expect(resumed.stderr).toContain("already completed");
      expect(sandbox.received("s", "tools/call")).toHaveLength(1);
    },
  );
});
