import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent } from "./e2e-agent-helpers.js";
import { CAN_RUN_IN_TERMINAL, E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

const provider = "openai";
const TOOL = "mcp__e__trigger-long-running-operation";
const STEPS = 4;

/** A model that runs server-everything's long operation (progress with a total), then answers. */
function steps() {
  return [
    toolCallTurn([{ id: "tc_long", name: TOOL, input: { duration: 1, steps: STEPS } }]),
    textTurn("Done."),
  ];
}

describe("what a person sees during a run", () => {
  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "on a terminal: the tool's name and a progress bar, its result as text, the tokens used",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const server = await setUpAgent(sandbox, provider, steps(), {
        mcpServers: { e: sandbox.everythingServer("e") },
        policy: { rules: [{ tool: TOOL, decision: "allow" }] },
        model: { prices: { inputPerMillion: 3, outputPerMillion: 15 } },
      });
      try {
        const result = await sandbox.run(["run", "go"], { terminal: true, env: agentEnv(provider) });
        expect(result.code, result.stdout).toBe(0);
        // The bar fills step by step (the terminal shows stdout and stderr as one stream).
        for (const percent of [25, 50, 75, 100]) {
          const filled = (percent / 100) * 20;
          expect(result.stdout).toContain(
            `${TOOL} [${"█".repeat(filled)}${"░".repeat(20 - filled)}] ${String(percent).padStart(3)}%`,
          );
        }
        expect(result.stdout).toContain("│ Long running operation completed. Duration: 1 seconds, Steps: 4.");
        expect(result.stdout).toMatch(/\d+ tokens \(\S+ in, \S+ out\) · \$\d+\.\d{4}/);
      } finally {
        await server.close();
      }
    },
  );

  test("without a terminal: the result as text, and no bar, spinner or escape code", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, steps(), {
      mcpServers: { e: sandbox.everythingServer("e") },
      policy: { rules: [{ tool: TOOL, decision: "allow" }] },
    });
    try {
      const result = await sandbox.run(["run", "go"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe("Done.\n");
      expect(result.stderr).toContain(`  ${TOOL} {"duration":1,"steps":4}  allowed (policy) → ok`);
      expect(result.stderr).toContain("    │ Long running operation completed.");
      for (const live of ["█", "thinking", "\u001b", "\r"]) expect(result.stderr).not.toContain(live);
    } finally {
      await server.close();
    }
  });
});
