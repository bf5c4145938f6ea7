import { emitEvent } from "@agent/tools";
import pg from "pg";
import { afterEach, expect, inject, it } from "vitest";
import {
  createPostgresAuditSink,
  openPostgresState,
  readAuditRecords,
  verifyAuditChain,
} from "../src/index.js";
import { createTestDatabase } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase() {
  const database = await createTestDatabase(inject("postgresUrl"));
  cleanups.push(() => database.drop());
  const state = await openPostgresState({ url: database.url });
  cleanups.push(() => state.close());
  return { state, url: database.url };
}

const decided = (callId: string) =>
  ({ type: "tool_call_decided", runId: "run_1", callId, toolName: "echo", decision: "allow" }) as const;

it("appends events in order from several writers into one unbroken chain", async () => {
  const { state, url } = await freshDatabase();
  const second = await openPostgresState({ url });
  cleanups.push(() => second.close());
  const sinks = [
    createPostgresAuditSink(state.pool, { host: "a" }),
    createPostgresAuditSink(second.pool, { host: "b" }),
  ];
  for (let index = 0; index < 200; index += 1) emitEvent(sinks[index % 2] as never, decided(`call_${index}`));
  await Promise.all(sinks.map((sink) => sink.close()));
  expect(await verifyAuditChain(state.pool)).toEqual({ ok: true, rows: 200 });
  const records = await readAuditRecords(state.pool, { runId: "run_1" });
  expect(records).toHaveLength(200);
  // One writer's events keep their order.
  const fromA = records
    .map((row) => JSON.parse(row.record).callId)
    .filter((id: string) => Number(id.slice(5)) % 2 === 0);
  expect(fromA).toEqual(Array.from({ length: 100 }, (_, index) => `call_${index * 2}`));
});

it("never stores credentials: records are redacted and bounded as in the JSONL trail", async () => {
  const { state } = await freshDatabase();
  const sink = createPostgresAuditSink(state.pool, { host: "ci-runner" });
  const secret = "s3cr3t-TOKEN-value-4f9a";
  emitEvent(sink, {
    type: "mcp_server_failed",
    server: "s",
    code: "x",
    message: "m".repeat(100_000),
    // Credential-looking fields anywhere in an event, as a careless emitter might pass them.
    ...({ headers: { authorization: `Bearer ${secret}` }, env: { API_TOKEN: secret } } as object),
  });
  await sink.close();
  // Every column of every row, as text: the secret bytes appear nowhere, not even hashed in place.
  const rows = await state.pool.query<{ row: string }>(
    "SELECT row_to_json(a)::text AS row FROM agent_audit a",
  );
  expect(rows.rows).toHaveLength(1);
  for (const { row } of rows.rows) {
    expect(row).not.toContain(secret);
    expect(row).not.toContain(Buffer.from(secret).toString("base64"));
  }
  const [record] = await readAuditRecords(state.pool);
  expect(record?.record.length).toBeLessThan(20_000);
  expect(record?.record).toContain("[redacted]");
});

it("refuses updates and deletes, even by the table's owner, and shows tampering through the chain", async () => {
  const { state } = await freshDatabase();
  const sink = createPostgresAuditSink(state.pool);
  for (let index = 0; index < 5; index += 1) emitEvent(sink, decided(`call_${index}`));
  await sink.close();
  await expect(state.pool.query("UPDATE agent_audit SET record = 'x' WHERE seq = 2")).rejects.toThrow(
    /append-only/,
  );
  await expect(state.pool.query("DELETE FROM agent_audit WHERE seq = 2")).rejects.toThrow(/append-only/);
  await expect(state.pool.query("TRUNCATE agent_audit")).rejects.toThrow(/append-only/);
  // A superuser who disables the trigger can still edit a row: the chain shows where.
  await state.pool.query("ALTER TABLE agent_audit DISABLE TRIGGER USER");
  await state.pool.query(`UPDATE agent_audit SET record = replace(record, 'call_2', 'call_X') WHERE seq = 3`);
  expect(await verifyAuditChain(state.pool)).toMatchObject({
    ok: false,
    brokenAt: 3,
    reason: expect.stringMatching(/changed/),
  });
  await state.pool.query("DELETE FROM agent_audit WHERE seq = 3");
  expect(await verifyAuditChain(state.pool)).toMatchObject({
    ok: false,
    brokenAt: 4,
    reason: expect.stringMatching(/removed/),
  });
});

it("grants a harness role INSERT and SELECT only: it can append and read, never change a row", async () => {
  const { state, url } = await freshDatabase();
  const database = new URL(url).pathname.slice(1);
  await state.pool.query(
    "DO $$ BEGIN CREATE ROLE agent_harness LOGIN PASSWORD 'harness'; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
  );
  await state.pool.query(`GRANT CONNECT ON DATABASE ${database} TO agent_harness`);
  await state.pool.query("GRANT INSERT, SELECT ON agent_audit TO agent_harness");
  await state.pool.query("GRANT USAGE ON SEQUENCE agent_audit_seq_seq TO agent_harness");
  const harnessUrl = new URL(url);
  harnessUrl.username = "agent_harness";
  harnessUrl.password = "harness";
  const pool = new pg.Pool({ connectionString: harnessUrl.toString() });
  cleanups.push(() => pool.end());
  const sink = createPostgresAuditSink(pool);
  emitEvent(sink, decided("call_1"));
  await sink.close();
  expect(await readAuditRecords(pool)).toHaveLength(1);
  await state.pool.query("ALTER TABLE agent_audit DISABLE TRIGGER USER");
  await expect(pool.query("UPDATE agent_audit SET record = 'x'")).rejects.toThrow(/permission denied/);
  await expect(pool.query("DELETE FROM agent_audit")).rejects.toThrow(/permission denied/);
});
