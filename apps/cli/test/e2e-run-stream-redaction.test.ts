import { textTurn } from "@agent/models/testing";
import { expect } from "vitest";
import { agentEnv, PROVIDERS, setUpAgent, TEST_API_KEY } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

// The fake model server streams text in 4-character deltas, so the key below reaches the display
// split across several pieces: each piece alone holds no secret, and only a redactor that reads the
// text as a stream removes it.
for (const provider of PROVIDERS) {
  test(`a secret the ${provider} model streams in pieces never reaches stdout`, {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [textTurn(`the key is ${TEST_API_KEY}, see?`)]);
    try {
      const result = await sandbox.run(["run", "what is the key?"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests.map((request) => request.stream)).toEqual([true]);
      expect(result.stdout).toBe("the key is [redacted], see?\n");
      expect(result.stderr).not.toContain(TEST_API_KEY);
    } finally {
      await server.close();
    }
  });
}
