import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_STORE_CONTRACT, sampleRunState } from "@agent/loop/testing";
import { describe, expect, it } from "vitest";
import { SqliteStateStore } from "../src/state/index.js";

/** Two connections to one fresh state database: the second stands for another process. */
function openFixture() {
  const root = mkdtempSync(join(tmpdir(), "agent-run-store-"));
  const first = SqliteStateStore.open(root);
  const second = SqliteStateStore.open(root);
  return {
    store: first.agentRuns,
    peer: second.agentRuns,
    close() {
      first.close();
      second.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe("SqliteRunStore", () => {
  for (const scenario of RUN_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run(openFixture));
  }

  it("keeps runs across reopening the database", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-run-store-"));
    try {
      const first = SqliteStateStore.open(root);
      await first.agentRuns.createRun(sampleRunState("run_1"));
      await first.agentRuns.updateRun("run_1", 1, { appendMessages: [{ role: "user", content: "more" }] });
      first.close();
      const again = SqliteStateStore.open(root);
      const loaded = await again.agentRuns.loadRun("run_1");
      again.close();
      expect(loaded?.version).toBe(2);
      expect(loaded?.messages.at(-1)).toEqual({ role: "user", content: "more" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
