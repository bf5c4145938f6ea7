import { describe, expect, it } from "vitest";
import { useScratchDirectory } from "./scratch.js";

const scratch = useScratchDirectory();
const SOURCES = [{ kind: "tool" as const, name: "mcp__web__fetch", server: "web", turn: 1 }];

describe("SqliteTaintedFileStore: the flow guard's marks and windows, shared by every process", () => {
  it("marks, replaces and clears a file's taint; another connection sees each", async () => {
    const mine = scratch.open().taintedFiles;
    const theirs = scratch.open().taintedFiles;
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
  });

  it("finds the marks under a directory by exact prefix: not a sibling, and % or _ mean themselves", async () => {
    const store = scratch.open().taintedFiles;
    const mark = (path: string) =>
      store.markTainted({ path, sha256: "a".repeat(64), runId: "run_1", sources: SOURCES, markedAt: "2030" });
    for (const path of ["/w/a_b/x.md", "/w/a_b/deep/y.md", "/w/aXb/z.md", "/w/a_b0", "/w/A_B/q.md"])
      await mark(path);
    const under = await store.findTaintedUnder("/w/a_b");
    expect(under.map((file) => file.path)).toEqual(["/w/a_b/deep/y.md", "/w/a_b/x.md"]);
    expect((await store.findTaintedUnder("/w/a_b/")).map((file) => file.path)).toEqual(
      under.map((file) => file.path),
    );
  });

  it("finds the window a change fell in, an unclosed one for an hour, and none outside", async () => {
    const mine = scratch.open().taintedFiles;
    const theirs = scratch.open().taintedFiles;
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
    expect(await mine.listWindows()).toHaveLength(1);
  });
});
