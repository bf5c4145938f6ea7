import { emitEvent } from "@agent/tools";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  type AuditChainHead,
  createPostgresAuditSink,
  openPostgresState,
  readAuditRecords,
  verifyAuditChain,
} from "../src/index.js";
import { createEd25519Signer, createEd25519Verifier, generateEd25519KeyPair } from "../src/keys/index.js";
import { AUDIT_CHAIN_ORIGIN, chainHash } from "../src/postgres-audit-trail.js";
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
  expect(await verifyAuditChain(state.pool)).toMatchObject({ ok: true, rows: 200 });
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

describe("a trail signed by its writers and checked against a checkpoint kept outside the database", () => {
  const writer = generateEd25519KeyPair();
  const writers = createEd25519Verifier({ "ci-7": writer.publicKey });

  /** Five signed rows, and the checkpoint their writer recorded after committing them. */
  async function signedTrail() {
    const { state } = await freshDatabase();
    const heads: AuditChainHead[] = [];
    const sink = createPostgresAuditSink(state.pool, {
      signer: createEd25519Signer("ci-7", writer.privateKeyPem),
      onCommitted: (head) => heads.push(head),
    });
    for (let index = 0; index < 5; index += 1) emitEvent(sink, decided(`call_${index}`));
    await sink.close();
    const checkpoints = heads.slice(-1);
    // Only the table's owner with its triggers off can do what follows: the worst case.
    await state.pool.query("ALTER TABLE agent_audit DISABLE TRIGGER USER");
    return { pool: state.pool, checkpoints };
  }

  it("accepts the untouched trail and hands back its head", async () => {
    const { pool, checkpoints } = await signedTrail();
    const verdict = await verifyAuditChain(pool, { writers, checkpoints });
    expect(verdict).toEqual({ ok: true, rows: 5, head: checkpoints[0] });
  });

  it("rejects a forged append that follows the chain", async () => {
    const { pool, checkpoints } = await signedTrail();
    const last = await pool.query<{ hash: string }>("SELECT hash FROM agent_audit ORDER BY seq DESC LIMIT 1");
    const previous = last.rows[0]?.hash ?? "";
    const record = JSON.stringify(decided("call_forged"));
    await pool.query(
      "INSERT INTO agent_audit (at, type, record, prev_hash, hash, signer, signature) VALUES ('x', 'x', $1, $2, $3, 'ci-7', 'AAAA')",
      [record, previous, chainHash(previous, record)],
    );
    expect(await verifyAuditChain(pool)).toMatchObject({ ok: true, rows: 6 });
    expect(await verifyAuditChain(pool, { writers, checkpoints })).toMatchObject({
      ok: false,
      brokenAt: 6,
      reason: expect.stringMatching(/no trusted writer/),
    });
  });

  it("rejects a deleted row even when the rows after it were re-chained", async () => {
    const { pool, checkpoints } = await signedTrail();
    await pool.query("DELETE FROM agent_audit WHERE seq = 3");
    await rechain(pool);
    expect(await verifyAuditChain(pool)).toMatchObject({ ok: true, rows: 4 });
    expect(await verifyAuditChain(pool, { writers, checkpoints })).toMatchObject({
      ok: false,
      brokenAt: 4,
      reason: expect.stringMatching(/no trusted writer/),
    });
  });

  it("rejects a truncated tail, which leaves a chain consistent and signed, by the checkpoint", async () => {
    const { pool, checkpoints } = await signedTrail();
    await pool.query("DELETE FROM agent_audit WHERE seq > 3");
    expect(await verifyAuditChain(pool, { writers })).toMatchObject({ ok: true, rows: 3 });
    expect(await verifyAuditChain(pool, { writers, checkpoints })).toMatchObject({
      ok: false,
      brokenAt: 5,
      reason: expect.stringMatching(/tail was removed/),
    });
  });
});

// What an owner who disabled the trigger does to hide a deletion: re-computes every hash after it.
async function rechain(pool: pg.Pool): Promise<void> {
  const rows = await pool.query<{ seq: string; record: string }>(
    "SELECT seq, record FROM agent_audit ORDER BY seq",
  );
  let previous = AUDIT_CHAIN_ORIGIN;
  for (const row of rows.rows) {
    const hash = chainHash(previous, row.record);
    await pool.query("UPDATE agent_audit SET prev_hash = $1, hash = $2 WHERE seq = $3", [
      previous,
      hash,
      row.seq,
    ]);
    previous = hash;
  }
}
