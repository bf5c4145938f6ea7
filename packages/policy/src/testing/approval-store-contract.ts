import assert from "node:assert/strict";
import { ACTION_DIGEST_VERSION } from "../action-digest.js";
import type { ApprovalDraft, ApprovalRequest, ApprovalStore } from "../approval-store.js";
import { PolicyError, type PolicyErrorCode } from "../errors.js";
import { DIGEST_VERSION_CHANGED_REASON, voidApprovalsOfOlderDigestVersion } from "../stale-approvals.js";

/** Makes a fresh, empty store whose timestamps come from `now`. */
export type ApprovalStoreFactory = (now: () => Date) => ApprovalStore | Promise<ApprovalStore>;

/** One behaviour every {@link ApprovalStore} must have; `run` throws (an assertion error) when it does not. */
export interface ApprovalStoreScenario {
  name: string;
  run(createStore: ApprovalStoreFactory): Promise<void>;
}

const DIGEST_A = "a".repeat(64);
const DIGEST_B = "b".repeat(64);
const NOW = "2030-01-02T04:00:00.000Z";
// The public shape of a minted id: the CLI prints these and takes them back.
const APPROVAL_ID = /^apr_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A request for run `run_1`, digest A, unless overridden, under the id `id` (a record carried over). */
export function sampleApprovalRequest(id: string, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return { ...sampleApprovalDraft(`call_${id}`), id, ...overrides };
}

/** A request as `authorize` drafts it (no id: the store mints one), for run `run_1` and digest A unless overridden. */
export function sampleApprovalDraft(
  callId = "call_1",
  overrides: Partial<ApprovalDraft> = {},
): ApprovalDraft {
  return {
    runId: "run_1",
    callId,
    toolName: "mcp__docs__search",
    effect: "external",
    actionDigest: DIGEST_A,
    digestVersion: ACTION_DIGEST_VERSION,
    toolFingerprint: "f".repeat(64),
    summary: 'mcp__docs__search (external) {"q":"x"}',
    createdAt: "2030-01-02T03:04:05.000Z",
    inputPreview: '{"q":"x"}',
    input: { q: "x", nested: { keep: [1, "two", null, true] } },
    cwd: "/work/project",
    network: "deny",
    ...overrides,
  };
}

/**
 * The contract of {@link ApprovalStore}, as scenarios any implementation (in memory, SQLite, your
 * own) can run in its own test framework: `for (const s of APPROVAL_STORE_CONTRACT) it(s.name, () => s.run(factory))`.
 */
export const APPROVAL_STORE_CONTRACT: readonly ApprovalStoreScenario[] = [
  scenario(
    "mints an apr_<uuid> id for a request that brings none, a new one per saved request",
    async (store) => {
      const first = await store.saveApprovalRequest(sampleApprovalDraft("call_1"));
      assert.equal(first.created, true);
      assert.match(first.record.id, APPROVAL_ID);
      assert.deepEqual(first.record, {
        ...sampleApprovalDraft("call_1"),
        id: first.record.id,
        status: "pending",
      });
      assert.deepEqual(await store.getApproval(first.record.id), first.record);
      const second = await store.saveApprovalRequest(sampleApprovalDraft("call_2", { runId: "run_2" }));
      assert.match(second.record.id, APPROVAL_ID);
      assert.notEqual(second.record.id, first.record.id);
    },
  ),
  scenario("mints nothing for a request already pending: it answers that one, not created", async (store) => {
    const first = await store.saveApprovalRequest(sampleApprovalDraft("call_1"));
    const again = await store.saveApprovalRequest(sampleApprovalDraft("call_2"));
    assert.deepEqual(again, { record: first.record, created: false });
    assert.deepEqual(
      (await store.listApprovals()).map((record) => record.id),
      [first.record.id],
    );
  }),
  scenario("saves a request as pending and finds it by id and by run and digest", async (store) => {
    const saved = await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    assert.deepEqual(saved, {
      record: { ...sampleApprovalRequest("apr_1"), status: "pending" },
      created: true,
    });
    assert.deepEqual(await store.getApproval("apr_1"), saved.record);
    assert.deepEqual(await store.findLatestApproval("run_1", DIGEST_A), saved.record);
    assert.equal(await store.findLatestApproval("run_1", DIGEST_B), undefined);
    assert.equal(await store.findLatestApproval("run_2", DIGEST_A), undefined);
    assert.equal(await store.getApproval("apr_missing"), undefined);
  }),
  scenario("returns the pending request when one exists for the same run and digest", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    assert.equal((await store.saveApprovalRequest(sampleApprovalRequest("apr_2"))).record.id, "apr_1");
    assert.equal(await store.getApproval("apr_2"), undefined);
    // Another digest or another run is another action.
    const otherDigest = sampleApprovalRequest("apr_3", { actionDigest: DIGEST_B });
    assert.equal((await store.saveApprovalRequest(otherDigest)).record.id, "apr_3");
    assert.equal(
      (await store.saveApprovalRequest(sampleApprovalRequest("apr_4", { runId: "run_2" }))).record.id,
      "apr_4",
    );
    assert.deepEqual(
      (await store.listApprovals()).map((record) => record.id),
      ["apr_1", "apr_3", "apr_4"],
    );
  }),
  scenario("refuses to overwrite an existing request with a reused id", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.denyApproval("apr_1");
    await rejectsWith(store.saveApprovalRequest(sampleApprovalRequest("apr_1")), "approval_id_taken");
    assert.equal((await store.getApproval("apr_1"))?.status, "denied");
  }),
  scenario("grants only a pending request, once", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    const granted = await store.grantApproval("apr_1");
    assert.equal(granted.status, "granted");
    assert.equal(granted.decidedAt, NOW);
    await rejectsWith(store.grantApproval("apr_1"), "approval_not_pending");
    await rejectsWith(store.denyApproval("apr_1"), "approval_not_pending");
    await rejectsWith(store.grantApproval("apr_nope"), "approval_not_found");
    await rejectsWith(store.denyApproval("apr_nope"), "approval_not_found");
  }),
  scenario("denies only a pending request, and a denied request grants nothing", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    assert.equal((await store.denyApproval("apr_1")).status, "denied");
    await rejectsWith(store.grantApproval("apr_1"), "approval_not_pending");
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), false);
  }),
  scenario("consumes a grant exactly once, and records when", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), false);
    await store.grantApproval("apr_1");
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), true);
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), false);
    const consumed = await store.getApproval("apr_1");
    assert.equal(consumed?.status, "consumed");
    assert.equal(consumed?.consumedAt, NOW);
    await rejectsWith(store.grantApproval("apr_1"), "approval_not_pending");
  }),
  scenario("never matches a grant to another digest or another run", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.grantApproval("apr_1");
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_B), false);
    assert.equal(await store.consumeApprovalGrant("run_2", DIGEST_A), false);
    assert.equal((await store.getApproval("apr_1"))?.status, "granted");
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), true);
  }),
  scenario("gives exactly one of 50 concurrent consumers the grant", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.grantApproval("apr_1");
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.consumeApprovalGrant("run_1", DIGEST_A)),
    );
    assert.equal(results.filter(Boolean).length, 1);
  }),
  scenario(
    "finds the newest request for a run and digest, whatever its status, and lists by status",
    async (store) => {
      await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
      await store.grantApproval("apr_1");
      await store.consumeApprovalGrant("run_1", DIGEST_A);
      await store.saveApprovalRequest(
        sampleApprovalRequest("apr_2", { createdAt: "2030-01-02T03:05:00.000Z" }),
      );
      assert.equal((await store.findLatestApproval("run_1", DIGEST_A))?.id, "apr_2");
      await store.denyApproval("apr_2");
      assert.equal((await store.findLatestApproval("run_1", DIGEST_A))?.status, "denied");
      assert.deepEqual(
        (await store.listApprovals({ status: "consumed" })).map((record) => record.id),
        ["apr_1"],
      );
      assert.deepEqual(await store.listApprovals({ status: "pending" }), []);
    },
  ),
  scenario("keeps a request's input, cwd and network as they were saved", async (store) => {
    const request = sampleApprovalRequest("apr_1", {
      input: { text: "line\nbreak \u0000 nul", big: 12345678901234, deep: { a: [{ b: {} }] } },
      cwd: "/a dir/with ünïcode",
      network: { allowHosts: ["api.example.com", "docs.example.com"] },
    });
    await store.saveApprovalRequest(request);
    const stored = await store.getApproval("apr_1");
    assert.deepEqual(stored?.input, request.input);
    assert.equal(stored?.cwd, request.cwd);
    assert.deepEqual(stored?.network, { allowHosts: ["api.example.com", "docs.example.com"] });
    await store.saveApprovalRequest(sampleApprovalRequest("apr_2", { runId: "run_2", network: "allow" }));
    assert.equal((await store.getApproval("apr_2"))?.network, "allow");
  }),
  scenario("voids a pending request: it can no longer be granted, denied or consumed", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    const voided = await store.voidApproval("apr_1", "the tool's definition changed");
    assert.equal(voided?.status, "voided");
    assert.equal(voided?.voidedAt, NOW);
    assert.equal(voided?.voidReason, "the tool's definition changed");
    assert.deepEqual(await store.getApproval("apr_1"), voided);
    await rejectsWith(store.grantApproval("apr_1"), "approval_not_pending");
    await rejectsWith(store.denyApproval("apr_1"), "approval_not_pending");
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), false);
    assert.equal((await store.findLatestApproval("run_1", DIGEST_A))?.status, "voided");
    assert.deepEqual(
      (await store.listApprovals({ status: "voided" })).map((record) => record.id),
      ["apr_1"],
    );
  }),
  scenario(
    "voids a granted request, so its grant is never consumed, even for the same digest later",
    async (store) => {
      await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
      await store.grantApproval("apr_1");
      assert.equal((await store.voidApproval("apr_1", "changed"))?.status, "voided");
      assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_A), false);
      // A new request for the same action is a new, pending one: the voided record is not revived.
      const again = await store.saveApprovalRequest(sampleApprovalRequest("apr_2"));
      assert.equal(again.created, true);
      assert.equal(again.record.id, "apr_2");
      assert.equal(again.record.status, "pending");
      assert.equal((await store.getApproval("apr_1"))?.status, "voided");
    },
  ),
  scenario("voids only pending or granted requests, and knows no unknown id", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.grantApproval("apr_1");
    await store.consumeApprovalGrant("run_1", DIGEST_A);
    await store.saveApprovalRequest(sampleApprovalRequest("apr_2", { actionDigest: DIGEST_B }));
    await store.denyApproval("apr_2");
    assert.equal(await store.voidApproval("apr_1", "changed"), undefined);
    assert.equal(await store.voidApproval("apr_2", "changed"), undefined);
    assert.equal((await store.getApproval("apr_1"))?.status, "consumed");
    assert.equal((await store.getApproval("apr_2"))?.status, "denied");
    await store.saveApprovalRequest(sampleApprovalRequest("apr_3", { runId: "run_3" }));
    await store.voidApproval("apr_3", "changed");
    assert.equal(await store.voidApproval("apr_3", "again"), undefined);
    assert.equal((await store.getApproval("apr_3"))?.voidReason, "changed");
    await rejectsWith(store.voidApproval("apr_nope", "changed"), "approval_not_found");
  }),
  scenario(
    "of a grant raced by 20 consumers and 20 voiders, it is either consumed once or voided",
    async (store) => {
      await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
      await store.grantApproval("apr_1");
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          index % 2 === 0
            ? store.consumeApprovalGrant("run_1", DIGEST_A)
            : store.voidApproval("apr_1", "changed").then((record) => record !== undefined),
        ),
      );
      const consumed = results.filter((value, index) => index % 2 === 0 && value).length;
      const voided = results.filter((value, index) => index % 2 === 1 && value).length;
      assert.equal(consumed + voided, 1);
      assert.equal((await store.getApproval("apr_1"))?.status, consumed === 1 ? "consumed" : "voided");
    },
  ),
  scenario("keeps each request's digest version, older and newer ones included", async (store) => {
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.saveApprovalRequest(sampleApprovalRequest("apr_2", { runId: "run_2", digestVersion: 0 }));
    await store.saveApprovalRequest(
      sampleApprovalRequest("apr_3", { runId: "run_3", digestVersion: ACTION_DIGEST_VERSION + 1 }),
    );
    assert.equal((await store.getApproval("apr_1"))?.digestVersion, ACTION_DIGEST_VERSION);
    assert.equal((await store.getApproval("apr_2"))?.digestVersion, 0);
    assert.equal(
      (await store.findLatestApproval("run_3", DIGEST_A))?.digestVersion,
      ACTION_DIGEST_VERSION + 1,
    );
    assert.deepEqual(
      (await store.listApprovals()).map((record) => record.digestVersion),
      [ACTION_DIGEST_VERSION, 0, ACTION_DIGEST_VERSION + 1],
    );
  }),
  scenario(
    "voids the pending and granted requests of an older digest version with digest_version_changed, and only those",
    async (store) => {
      const older = { digestVersion: ACTION_DIGEST_VERSION - 1 };
      await store.saveApprovalRequest(sampleApprovalRequest("apr_old_pending", { ...older, runId: "run_1" }));
      await store.saveApprovalRequest(sampleApprovalRequest("apr_old_granted", { ...older, runId: "run_2" }));
      await store.grantApproval("apr_old_granted");
      await store.saveApprovalRequest(sampleApprovalRequest("apr_old_denied", { ...older, runId: "run_3" }));
      await store.denyApproval("apr_old_denied");
      await store.saveApprovalRequest(sampleApprovalRequest("apr_current", { runId: "run_4" }));
      await store.saveApprovalRequest(
        sampleApprovalRequest("apr_newer", { runId: "run_5", digestVersion: ACTION_DIGEST_VERSION + 1 }),
      );
      const voided = await voidApprovalsOfOlderDigestVersion(store);
      assert.deepEqual(voided.map((record) => record.id).sort(), ["apr_old_granted", "apr_old_pending"]);
      for (const id of ["apr_old_pending", "apr_old_granted"]) {
        const record = await store.getApproval(id);
        assert.equal(record?.status, "voided");
        assert.equal(record?.voidReason, DIGEST_VERSION_CHANGED_REASON);
      }
      // Its grant is gone for good; a decided, a current and a newer request stand as they were.
      assert.equal(await store.consumeApprovalGrant("run_2", DIGEST_A), false);
      assert.equal((await store.getApproval("apr_old_denied"))?.status, "denied");
      assert.equal((await store.getApproval("apr_current"))?.status, "pending");
      assert.equal((await store.getApproval("apr_newer"))?.status, "pending");
      assert.deepEqual(await voidApprovalsOfOlderDigestVersion(store), []);
    },
  ),
  scenario("hands out copies: changing a returned record changes nothing stored", async (store) => {
    const { record: saved } = await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    saved.status = "granted";
    saved.actionDigest = DIGEST_B;
    assert.equal(await store.consumeApprovalGrant("run_1", DIGEST_B), false);
    assert.equal((await store.getApproval("apr_1"))?.status, "pending");
  }),
];

function scenario(name: string, body: (store: ApprovalStore) => Promise<void>): ApprovalStoreScenario {
  return { name, run: async (createStore) => body(await createStore(() => new Date(NOW))) };
}

async function rejectsWith(promise: Promise<unknown>, code: PolicyErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => PolicyError.isInstance(error) && error.code === code);
}
