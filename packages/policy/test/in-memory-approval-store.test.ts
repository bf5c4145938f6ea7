import { type ApprovalRequest, InMemoryApprovalStore, PolicyError } from "@agent/policy";
import { describe, expect, it } from "vitest";

const DIGEST_A = "a".repeat(64);
const DIGEST_B = "b".repeat(64);

function request(id: string, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id,
    runId: "run_1",
    callId: `call_${id}`,
    toolName: "mcp__docs__search",
    effect: "external",
    actionDigest: DIGEST_A,
    toolFingerprint: "f".repeat(64),
    summary: 'mcp__docs__search (external) {"q":"x"}',
    createdAt: "2030-01-02T03:04:05.000Z",
    inputPreview: '{"q":"x"}',
    ...overrides,
  };
}

async function policyErrorOf(promise: Promise<unknown>): Promise<PolicyError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error("expected a PolicyError");
}

function storeAt(time = "2030-01-02T04:00:00.000Z"): InMemoryApprovalStore {
  return new InMemoryApprovalStore({ now: () => new Date(time) });
}

describe("InMemoryApprovalStore", () => {
  it("saves a request as pending and finds it by id and by run and digest", async () => {
    const store = storeAt();
    const saved = await store.saveApprovalRequest(request("apr_1"));
    expect(saved).toEqual({ ...request("apr_1"), status: "pending" });
    expect(await store.getApproval("apr_1")).toEqual(saved);
    expect(await store.findLatestApproval("run_1", DIGEST_A)).toEqual(saved);
    expect(await store.findLatestApproval("run_1", DIGEST_B)).toBeUndefined();
    expect(await store.findLatestApproval("run_2", DIGEST_A)).toBeUndefined();
    expect(await store.getApproval("apr_missing")).toBeUndefined();
  });

  it("dedupes: saving while one is pending for the same run and digest returns the pending one", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    const again = await store.saveApprovalRequest(request("apr_2"));
    expect(again.id).toBe("apr_1");
    expect(await store.getApproval("apr_2")).toBeUndefined();
    // Another digest or another run is another action.
    expect((await store.saveApprovalRequest(request("apr_3", { actionDigest: DIGEST_B }))).id).toBe("apr_3");
    expect((await store.saveApprovalRequest(request("apr_4", { runId: "run_2" }))).id).toBe("apr_4");
    expect((await store.listApprovals()).map((record) => record.id)).toEqual(["apr_1", "apr_3", "apr_4"]);
  });

  it("refuses to overwrite an existing request with a reused id", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    await store.denyApproval("apr_1");
    const error = await policyErrorOf(store.saveApprovalRequest(request("apr_1")));
    expect(error.code).toBe("approval_id_taken");
    expect((await store.getApproval("apr_1"))?.status).toBe("denied");
  });

  it("grants only a pending request, once", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    const granted = await store.grantApproval("apr_1");
    expect(granted).toMatchObject({ status: "granted", decidedAt: "2030-01-02T04:00:00.000Z" });
    expect((await policyErrorOf(store.grantApproval("apr_1"))).code).toBe("approval_not_pending");
    expect((await policyErrorOf(store.denyApproval("apr_1"))).code).toBe("approval_not_pending");
    expect((await policyErrorOf(store.grantApproval("apr_nope"))).code).toBe("approval_not_found");
    expect((await policyErrorOf(store.denyApproval("apr_nope"))).code).toBe("approval_not_found");
  });

  it("denies only a pending request, and a denied request grants nothing", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    expect(await store.denyApproval("apr_1")).toMatchObject({ status: "denied" });
    expect((await policyErrorOf(store.grantApproval("apr_1"))).code).toBe("approval_not_pending");
    expect(await store.consumeApprovalGrant("run_1", DIGEST_A)).toBe(false);
  });

  it("consumes a grant exactly once, and records when", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    expect(await store.consumeApprovalGrant("run_1", DIGEST_A)).toBe(false);
    await store.grantApproval("apr_1");
    expect(await store.consumeApprovalGrant("run_1", DIGEST_A)).toBe(true);
    expect(await store.consumeApprovalGrant("run_1", DIGEST_A)).toBe(false);
    expect(await store.getApproval("apr_1")).toMatchObject({
      status: "consumed",
      consumedAt: "2030-01-02T04:00:00.000Z",
    });
    expect((await policyErrorOf(store.grantApproval("apr_1"))).code).toBe("approval_not_pending");
  });

  it("never matches a grant to another digest or another run", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    await store.grantApproval("apr_1");
    expect(await store.consumeApprovalGrant("run_1", DIGEST_B)).toBe(false);
    expect(await store.consumeApprovalGrant("run_2", DIGEST_A)).toBe(false);
    expect((await store.getApproval("apr_1"))?.status).toBe("granted");
    expect(await store.consumeApprovalGrant("run_1", DIGEST_A)).toBe(true);
  });

  it("gives exactly one of 50 concurrent consumers the grant", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    await store.grantApproval("apr_1");
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.consumeApprovalGrant("run_1", DIGEST_A)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("finds the newest request for a run and digest, whatever its status, and lists by status", async () => {
    const store = storeAt();
    await store.saveApprovalRequest(request("apr_1"));
    await store.grantApproval("apr_1");
    await store.consumeApprovalGrant("run_1", DIGEST_A);
    await store.saveApprovalRequest(request("apr_2"));
    expect((await store.findLatestApproval("run_1", DIGEST_A))?.id).toBe("apr_2");
    await store.denyApproval("apr_2");
    expect(await store.findLatestApproval("run_1", DIGEST_A)).toMatchObject({
      id: "apr_2",
      status: "denied",
    });
    expect((await store.listApprovals({ status: "consumed" })).map((record) => record.id)).toEqual(["apr_1"]);
    expect((await store.listApprovals({ status: "pending" })).map((record) => record.id)).toEqual([]);
  });

  it("hands out copies: changing a returned record changes nothing stored", async () => {
    const store = storeAt();
    const saved = await store.saveApprovalRequest(request("apr_1"));
    saved.status = "granted";
    saved.actionDigest = DIGEST_B;
    expect(await store.consumeApprovalGrant("run_1", DIGEST_B)).toBe(false);
    expect((await store.getApproval("apr_1"))?.status).toBe("pending");
  });
});
