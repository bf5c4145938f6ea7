import { RUN_STORE_CONTRACT, sampleRunState } from "@agent/loop/testing";
import { describe, expect, it } from "vitest";
import { useScratchDirectory } from "./scratch.js";

const scratch = useScratchDirectory();

describe("SqliteRunStore: the RunStore contract", () => {
  for (const scenario of RUN_STORE_CONTRACT) {
    // Two connections to one file: the second stands for another process.
    it(scenario.name, () => scenario.run(() => ({ store: scratch.open().runs, peer: scratch.open().runs })));
  }
});

describe("SqliteRunStore", () => {
  it("keeps runs across reopening the database", async () => {
    const first = scratch.open();
    await first.runs.createRun(sampleRunState("run_1"));
    await first.runs.updateRun("run_1", 1, { appendMessages: [{ role: "user", content: "more" }] });
    first.close();
    const loaded = await scratch.open().runs.loadRun("run_1");
    expect(loaded?.version).toBe(2);
    expect(loaded?.messages.at(-1)).toEqual({ role: "user", content: "more" });
  });
});
