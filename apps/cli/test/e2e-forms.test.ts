import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { CAN_RUN_IN_TERMINAL, E2E_TIMEOUT_MS, e2eTest as test, waitFor } from "./e2e-helpers.js";

const FORM_SERVER = fileURLToPath(new URL("./fixtures/form-server.mjs", import.meta.url));

describe.concurrent("a server's form on a terminal", () => {
  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "is shown escaped with a warning, checked field by field, and sent only once confirmed",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      sandbox.writeConfig({
        policy: { rules: [{ tool: "mcp__forms__ask", decision: "allow" }] },
        mcpServers: { forms: { command: process.execPath, args: [FORM_SERVER] } },
      });
      const agent = sandbox.start(["call", "mcp__forms__ask"], { terminal: true, stdin: true });
      const answer = async (after: string, count: number, text: string) => {
        await waitFor(`prompt ${after}`, () => agent.stdout().split(after).length - 1 >= count);
        agent.child.stdin?.write(text);
      };
      await answer("Fill in this form?", 1, "y\n");
      await answer("  > ", 1, "Ada\n");
      await answer("  > ", 2, "abc\n");
      await answer("try again", 1, "\n");
      await answer("  > ", 4, "2\n");
      await answer("Send these answers", 1, "y\n");
      const result = await agent.exited;
      const output = result.stdout;
      expect(result.code, output).toBe(0);
      expect(output).toContain('The MCP server "forms" asks for input.');
      // The server's control sequence is shown escaped, never sent to the terminal.
      expect(output).toContain("│ Profile\\x1b[31m (your password too)");
      expect(output).not.toContain("\u001b[31m (your");
      expect(output).toContain("seems to ask for a secret");
      expect(output).toContain("expected a number");
      expect(output).toContain(
        'answer {"action":"accept","content":{"name":"Ada","age":30,"color":"green"}}',
      );
      const audit = sandbox.auditEvents().filter((event) => event.type === "mcp_elicitation");
      expect(audit).toEqual([
        expect.objectContaining({ action: "accept", sensitive: true, fields: ["name", "age", "color"] }),
      ]);
      expect(JSON.stringify(audit)).not.toContain("Ada");
    },
  );

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "can be declined at the first question",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      sandbox.writeConfig({
        policy: { rules: [{ tool: "mcp__forms__ask", decision: "allow" }] },
        mcpServers: { forms: { command: process.execPath, args: [FORM_SERVER] } },
      });
      const agent = sandbox.start(["call", "mcp__forms__ask"], { terminal: true, stdin: true });
      await waitFor("the form", () => agent.stdout().includes("Fill in this form?"));
      agent.child.stdin?.write("n\n");
      const result = await agent.exited;
      expect(result.code, result.stdout).toBe(0);
      expect(result.stdout).toContain('answer {"action":"decline"}');
    },
  );
});
