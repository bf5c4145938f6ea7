import assert from "node:assert/strict";
import type { FlowSource } from "@agent/tools";
import type { TaintedFile, TaintedFileStore, TaintWindowStore } from "../tainted-files.js";
import { UNCLOSED_WINDOW_MS, WINDOW_SLACK_MS } from "../tainted-files.js";

/**
 * Makes a fresh, empty store and a second view of it (another process's connection to the same
 * database; for a store in memory, the store itself).
 */
export type FlowStoreFactory<Store> = () =>
  | { store: Store; peer: Store }
  | Promise<{ store: Store; peer: Store }>;

/** One behaviour every store of the flow guard must have; `run` throws (an assertion error) when it does not. */
export interface FlowStoreScenario<Store> {
  name: string;
  run(createStores: FlowStoreFactory<Store>): Promise<void>;
}

const SOURCE: FlowSource = Object.freeze({ kind: "tool", name: "mcp__web__fetch", server: "web", turn: 1 });
const START = 1_900_000_000_000;

function mark(path: string, overrides: Partial<TaintedFile> = {}): TaintedFile {
  return {
    path,
    sha256: "a".repeat(64),
    runId: "run_1",
    sources: [SOURCE],
    markedAt: "2030-01-01T00:00:00.000Z",
    ...overrides,
  };
}

const byPath = (files: readonly TaintedFile[]): string[] => files.map((file) => file.path).sort();

/**
 * The contract of {@link TaintedFileStore}, as scenarios any implementation runs in its own test
 * framework: `for (const s of TAINTED_FILE_STORE_CONTRACT) it(s.name, () => s.run(factory))`.
 */
export const TAINTED_FILE_STORE_CONTRACT: readonly FlowStoreScenario<TaintedFileStore>[] = [
  {
    name: "marks, replaces and clears a file's taint; the other view sees each",
    run: async (createStores) => {
      const { store, peer } = await createStores();
      await store.markTainted(mark("/w/plan.md"));
      assert.deepEqual(await peer.findTainted(["/w/plan.md", "/w/other.md"]), [mark("/w/plan.md")]);
      await store.markTainted(mark("/w/plan.md", { runId: "run_2", sha256: "b".repeat(64) }));
      assert.deepEqual(await peer.findTainted(["/w/plan.md"]), [
        mark("/w/plan.md", { runId: "run_2", sha256: "b".repeat(64) }),
      ]);
      await peer.clearTaint("/w/plan.md");
      assert.deepEqual(await store.findTainted(["/w/plan.md"]), []);
      assert.deepEqual(await store.findTainted([]), []);
      await store.clearTaint("/w/never-marked.md");
    },
  },
  {
    name: "finds the marks below a directory by exact prefix: no sibling, no other case, % and _ as themselves",
    run: async (createStores) => {
      const { store, peer } = await createStores();
      for (const path of [
        "/w/a_b/x.md",
        "/w/a_b/deep/y.md",
        "/w/aXb/z.md",
        "/w/a_b0",
        "/w/A_B/q.md",
        "/w/a%b/r.md",
      ]) {
        await store.markTainted(mark(path));
      }
      assert.deepEqual(byPath(await peer.findTaintedUnder("/w/a_b")), ["/w/a_b/deep/y.md", "/w/a_b/x.md"]);
      assert.deepEqual(byPath(await peer.findTaintedUnder("/w/a_b/")), ["/w/a_b/deep/y.md", "/w/a_b/x.md"]);
      assert.deepEqual(byPath(await peer.findTaintedUnder("/w/a%b")), ["/w/a%b/r.md"]);
      assert.deepEqual(await peer.findTaintedUnder("/elsewhere"), []);
    },
  },
];

/**
 * The contract of {@link TaintWindowStore}: windows are found by the time a file changed, with
 * {@link WINDOW_SLACK_MS} either side and {@link UNCLOSED_WINDOW_MS} for one never closed.
 */
export const TAINT_WINDOW_STORE_CONTRACT: readonly FlowStoreScenario<TaintWindowStore>[] = [
  {
    name: "finds the window a change fell in, an unclosed one for its assumed length, and none outside",
    run: async (createStores) => {
      const { store, peer } = await createStores();
      await store.openWindow({ id: "win_1", runId: "run_1", sources: [SOURCE], startedAt: START });
      assert.equal((await peer.windowAt(START + UNCLOSED_WINDOW_MS / 2 + 0.5))?.endedAt, null);
      assert.equal(await peer.windowAt(START + UNCLOSED_WINDOW_MS + WINDOW_SLACK_MS + 1), undefined);
      await store.closeWindow("win_1", START + 5000);
      const closed = {
        id: "win_1",
        runId: "run_1",
        sources: [SOURCE],
        startedAt: START,
        endedAt: START + 5000,
      };
      assert.deepEqual(await peer.windowAt(START + 2500), closed);
      assert.deepEqual(await peer.windowAt(START - WINDOW_SLACK_MS), closed);
      assert.deepEqual(await peer.windowAt(START + 5000 + WINDOW_SLACK_MS), closed);
      assert.equal(await peer.windowAt(START + 60_000), undefined);
      assert.equal(await peer.windowAt(START - 60_000), undefined);
    },
  },
  {
    name: "lists every window, oldest first",
    run: async (createStores) => {
      const { store, peer } = await createStores();
      await store.openWindow({
        id: "win_late",
        runId: "run_2",
        sources: [SOURCE],
        startedAt: START + 10_000,
      });
      await store.openWindow({ id: "win_early", runId: "run_1", sources: [SOURCE], startedAt: START });
      await store.closeWindow("win_early", START + 1000);
      assert.deepEqual(
        (await peer.listWindows()).map((window) => [window.id, window.endedAt]),
        [
          ["win_early", START + 1000],
          ["win_late", null],
        ],
      );
    },
  },
];
