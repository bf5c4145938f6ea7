import { createServer, type Server, Socket } from "node:net";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgresState } from "../src/index.js";
import { startThrowawayCluster, useThrowawayClusterPerFile } from "../src/testing/index.js";

// A cluster of this file's own: these tests restart it, which other files must not feel.
const cluster = useThrowawayClusterPerFile({ beforeAll, afterAll });

const DIGEST = "a".repeat(64);

it("survives a database restart between commands: the request is still there and the pool reconnects", async () => {
  const state = await openPostgresState({ url: cluster().url });
  try {
    await state.approvals.saveApprovalRequest(sampleApprovalRequest("apr_restart"));
    await cluster().restart();
    // The pooled connection died with the server: the first query may fail, structured, or succeed
    // on a fresh connection; it never hangs and never loses the row.
    const first = await state.approvals.getApproval("apr_restart").catch((error: unknown) => error);
    if (first instanceof Error) expect(first).toMatchObject({ code: "store_unavailable" });
    const again = await state.approvals.getApproval("apr_restart");
    expect(again?.status).toBe("pending");
    await state.approvals.grantApproval("apr_restart");
    expect(await state.approvals.consumeApprovalGrant("run_1", DIGEST)).toBe(true);
  } finally {
    await state.close();
  }
});

it("fails clearly while the database is down, without the URL or its password", async () => {
  const state = await openPostgresState({ url: cluster().url });
  const down = await startThrowawayCluster();
  const downUrl = down.url;
  await down.stop();
  try {
    const failure = (await openPostgresState({ url: downUrl }).catch((error: unknown) => error)) as Error;
    expect(failure).toMatchObject({ code: "store_unavailable" });
    const password = decodeURIComponent(new URL(downUrl).password);
    expect(failure.message).not.toContain(password);
    expect(failure.message).not.toContain(downUrl);
  } finally {
    await state.close();
  }
});

it("a connection dropped while a grant is consumed never allows a second execution", async () => {
  const setup = await openPostgresState({ url: cluster().url });
  const proxy = await startDroppingProxy(cluster().port);
  const url = new URL(cluster().url);
  url.port = String(proxy.port);
  const state = await openPostgresState({ url: url.toString() });
  try {
    await setup.approvals.saveApprovalRequest(sampleApprovalRequest("apr_drop", { runId: "run_drop" }));
    await setup.approvals.grantApproval("apr_drop");
    // The proxy forwards the UPDATE to the server, then cuts the connection before the answer
    // returns: the server committed, the client never learnt it.
    proxy.dropAfterQueryContaining("consumed");
    const outcome = await state.approvals
      .consumeApprovalGrant("run_drop", DIGEST)
      .catch((error: unknown) => error);
    expect(outcome).toMatchObject({ code: "store_unavailable" });
    // The grant is spent: nobody can use it again, so the call cannot run twice.
    expect(await setup.approvals.consumeApprovalGrant("run_drop", DIGEST)).toBe(false);
    expect(await state.approvals.consumeApprovalGrant("run_drop", DIGEST)).toBe(false);
    expect((await setup.approvals.getApproval("apr_drop"))?.status).toBe("consumed");
  } finally {
    await state.close();
    await setup.close();
    await proxy.close();
  }
});

/** A loopback TCP proxy to the server that can cut a connection right after a query passes through it. */
async function startDroppingProxy(targetPort: number): Promise<{
  port: number;
  dropAfterQueryContaining(marker: string): void;
  close(): Promise<void>;
}> {
  let marker: string | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client);
    sockets.add(upstream);
    upstream.connect(targetPort, "127.0.0.1");
    let armed = false;
    client.on("data", (chunk: Buffer) => {
      if (marker !== undefined && chunk.includes(marker)) {
        armed = true;
        marker = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (armed) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no proxy port");
  return {
    port: address.port,
    dropAfterQueryContaining(text) {
      marker = text;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
