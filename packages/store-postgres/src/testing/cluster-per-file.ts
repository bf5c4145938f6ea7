import {
  reserveThrowawayCluster,
  THROWAWAY_CLUSTER_TIMEOUT_MS,
  type ThrowawayCluster,
  type ThrowawayClusterHandle,
  type ThrowawayClusterOptions,
} from "./throwaway-cluster.js";

/** A test runner's once-per-file hooks, as vitest's `beforeAll` and `afterAll` take them. */
export interface FileHooks {
  beforeAll(run: () => Promise<void>, timeoutMs: number): void;
  afterAll(run: () => Promise<void>, timeoutMs: number): void;
}

/**
 * A throwaway cluster of one test file's own (for tests that restart it, or roles only it knows):
 * started in the file's `beforeAll`, stopped in its `afterAll`, each given
 * {@link THROWAWAY_CLUSTER_TIMEOUT_MS}. The handle is taken before the start is awaited, so a hook
 * that times out cannot orphan the server. Call the returned function in a test for the cluster.
 */
export function useThrowawayClusterPerFile(
  hooks: FileHooks,
  options: ThrowawayClusterOptions = {},
): () => ThrowawayCluster {
  let handle: ThrowawayClusterHandle | undefined;
  let cluster: ThrowawayCluster | undefined;
  hooks.beforeAll(async () => {
    handle = reserveThrowawayCluster(options);
    cluster = await handle.ready;
  }, THROWAWAY_CLUSTER_TIMEOUT_MS);
  hooks.afterAll(async () => {
    await handle?.stop();
  }, THROWAWAY_CLUSTER_TIMEOUT_MS);
  return () => {
    if (!cluster)
      throw new Error("The file's throwaway cluster is not up: use it inside a test, after beforeAll.");
    return cluster;
  };
}
