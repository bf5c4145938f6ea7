import { afterEach, describe, expect, inject, it } from "vitest";
import { openPostgresState } from "../src/index.js";
import { createTestDatabase } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openStores() {
  const database = await createTestDatabase(inject("postgresUrl"));
  cleanups.push(() => database.drop());
  const [mine, theirs] = await Promise.all([
    openPostgresState({ url: database.url }),
    openPostgresState({ url: database.url }),
  ]);
  cleanups.push(
    () => mine.close(),
    () => theirs.close(),
  );
  return { mine: mine.taintedFiles, theirs: theirs.taintedFiles };
}

const SOURCES = [{ kind: "tool" as const, name: "mcp__web__fetch", server: "web", turn: 1 }];

describe("PostgresTaintedFileStore: the flow guard's marks and windows, shared by every machine", () => {
  it("marks, replaces and clears a file's taint; another machine sees each", async () => {
    const { mine, theirs } = await openStores();
    const file = {
      path: "/w/plan.md",
      sha256: "a".repeat(64),
      runId: "run_1",
      sources: SOURCES,
      markedAt: "2030-01-01T00:00:00.000Z",
    };
    await mine.markTainted(file);
    expect(await theirs.findTainted(["/w/plan.md", "/w/other.md"])).toEqual([file]);
    await mine.markTainted({ ...file, runId: "run_2" });
    expect((await theirs.findTainted(["/w/plan.md"]))[0]?.runId).toBe("run_2");
    await theirs.clearTaint("/w/plan.md");
    expect(await mine.findTainted(["/w/plan.md"])).toEqual([]);
    expect(await mine.findTainted([])).toEqual([]);
  });

  it("finds the window a change fell in, an unclosed one for an hour, and none outside", async () => {
    const { mine, theirs } = await openStores();
    const start = 1_900_000_000_000;
    await mine.openWindow({ id: "win_1", runId: "run_1", sources: SOURCES, startedAt: start });
    expect(await theirs.windowAt(start + 30 * 60 * 1000 + 0.5)).toMatchObject({ id: "win_1", endedAt: null });
    await mine.closeWindow("win_1", start + 5000);
    expect(await theirs.windowAt(start + 2500)).toEqual({
      id: "win_1",
      runId: "run_1",
      sources: SOURCES,
      startedAt: start,
      endedAt: start + 5000,
    });
    expect(await theirs.windowAt(start + 60_000)).toBeUndefined();
    expect(await theirs.windowAt(start - 60_000)).toBeUndefined();
  });
});
