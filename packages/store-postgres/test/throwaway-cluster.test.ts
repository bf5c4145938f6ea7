import { existsSync } from "node:fs";
import pg from "pg";
import { expect, it } from "vitest";
import { reserveThrowawayCluster, THROWAWAY_CLUSTER_TIMEOUT_MS } from "../src/testing/index.js";

it(
  "stops a cluster whose start is still under way (a timed-out beforeAll), leaving no server or directory",
  async () => {
    const handle = reserveThrowawayCluster();
    // What afterAll does when beforeAll gave up waiting: stop without ever having seen the cluster.
    await handle.stop();
    const cluster = await handle.ready;
    expect(existsSync(cluster.directory)).toBe(false);
    const client = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 5_000 });
    client.on("error", () => {});
    await expect(client.connect()).rejects.toMatchObject({ code: "ECONNREFUSED" });
  },
  THROWAWAY_CLUSTER_TIMEOUT_MS,
);
