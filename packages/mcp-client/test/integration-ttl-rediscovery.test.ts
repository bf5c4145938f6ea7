/**
 * A list change on a real 2026-07-28 server (the official SDK v2), over stdio and Streamable HTTP:
 * such a server has no `list_changed` and no session, so the change is found when its listing's
 * `ttlMs` expires. The fixture lists `ttlMs: 0` and reads `extra`'s description from a file at each
 * listing (a redeployed server); `listTtl.minMs: 0` lets the expiry be the next call, so nothing here
 * waits for a clock. After the re-listing the new definition is served, the call authorized against
 * the old one is refused before it is sent, and the old grant no longer matches.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readRecordFile, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import type { McpTransport, McpTransportError } from "@agent/mcp-transport";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  type ClientHarness,
  createClientHarness,
  reapOrFail,
  stdioHarness,
  temporaryDirectory,
} from "./integration-helpers.js";

const V2_SERVER = fileURLToPath(new URL("./fixtures/sdk-v2-server.mjs", import.meta.url));

type ErrorObservable = McpTransport & { onError(listener: (error: McpTransportError) => void): () => void };

interface Redeployable {
  harness: ClientHarness<ErrorObservable>;
  toolsFile: string;
  records: () => ReturnType<typeof readRecordFile>;
}

function fixtureFiles() {
  const directory = temporaryDirectory();
  const toolsFile = join(directory, "extra.txt");
  writeFileSync(toolsFile, "Does something (v1).");
  const records = join(directory, "records.jsonl");
  return {
    toolsFile,
    records,
    env: { MCP_TESTING_TOOLS_FILE: toolsFile, MCP_TESTING_TTL_MS: "0", MCP_TESTING_RECORD_FILE: records },
  };
}

// Every tool but `extra` is allowed; `extra` is asked for (the policy's default for external tools).
const OPTIONS = { name: "v2", allow: ["echo"], connection: { listTtl: { minMs: 0 } } };

function overStdio(): Redeployable {
  const files = fixtureFiles();
  const harness = stdioHarness(
    { command: process.execPath, args: [V2_SERVER, "stdio"], env: files.env },
    OPTIONS,
  );
  return { harness, toolsFile: files.toolsFile, records: () => readRecordFile(files.records) };
}

async function overHttp(): Promise<Redeployable> {
  const files = fixtureFiles();
  const server = await startLoopbackHttpServer(V2_SERVER, ["http"], { env: files.env });
  const harness = createClientHarness(
    () => createStreamableHttpTransport({ url: server.url, closeTimeoutMs: 1_000 }),
    OPTIONS,
  );
  onTestFinished(async () => {
    await harness.connection.close();
    const tracked = server.processes();
    await server.kill();
    await reapOrFail(tracked);
  });
  return { harness, toolsFile: files.toolsFile, records: () => readRecordFile(files.records) };
}

async function expectRediscoveredByTtl({ harness, toolsFile, records }: Redeployable): Promise<void> {
  await harness.connection.start();
  expect(harness.connection.snapshot()).toMatchObject({ protocolEra: "stateless" });
  const extra = () => executeToolCall({ name: "mcp__v2__extra", input: {} }, harness.env);
  const before = harness.registry.get("mcp__v2__extra");
  expect(before?.description).toContain("v1");

  const held = await extra();
  if (held.type !== "waiting") throw new Error("expected the call to be held for approval");
  await harness.approvals.grantApproval(held.requestId);

  writeFileSync(toolsFile, "Does something else entirely (v2).");
  const refused = await extra();
  expect(refused).toMatchObject({ type: "observation", ok: false, error: "mcp_unavailable" });
  const after = harness.registry.get("mcp__v2__extra");
  expect(after?.description).toContain("v2");
  expect(after?.fingerprint).not.toBe(before?.fingerprint);
  expect(harness.events.ofType("mcp_tools_changed")).toEqual([
    expect.objectContaining({ server: "v2", changed: ["mcp__v2__extra"] }),
  ]);

  // The old grant matches nothing now: the same call is held again, bound to the new definition.
  const again = await extra();
  if (again.type !== "waiting") throw new Error("expected the call to be held again");
  expect(again.requestId).not.toBe(held.requestId);
  expect((await harness.approvals.getApproval(again.requestId))?.toolFingerprint).toBe(after?.fingerprint);
  await harness.approvals.grantApproval(again.requestId);
  expect(await extra()).toMatchObject({ type: "observation", ok: true });
  // The server ran `extra` once, under the definition the operator approved last.
  expect(records().filter((entry) => entry.event === "called" && entry.tool === "extra")).toEqual([
    expect.objectContaining({ description: "Does something else entirely (v2)." }),
  ]);
}

describe("a 2026-07-28 server's list change, found by ttlMs expiry", () => {
  it("over stdio: the new definition is served and the old approval no longer matches", async () => {
    await expectRediscoveredByTtl(overStdio());
  });

  it("over Streamable HTTP: the new definition is served and the old approval no longer matches", async () => {
    await expectRediscoveredByTtl(await overHttp());
  });
});
