// The cost of a governed call whose approval is consumed, on each ApprovalStore the CLI can use:
// SQLite (one machine) and PostgreSQL (a team; a throwaway server on loopback, started here), with
// the in-memory store as the floor. One call = held (the request is saved), granted, then run (the
// grant is consumed): every store operation a held call costs, none of a server's time.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./modules.mjs";
import { startingOnServerCpu } from "./placement.mjs";
import { median } from "./stats.mjs";

const dist = (path) => import(pathToFileURL(join(REPO_ROOT, path)).href);

/** Medians per approved call (ms) for `memory`, `sqlite` and `postgres`. */
export async function benchStores(cleanup, { progress, calls = 200, rounds = 5 }) {
  const [tools, policy, sqlite, postgres, testing, { z }] = await Promise.all([
    dist("packages/tools/dist/index.js"),
    dist("packages/policy/dist/index.js"),
    dist("apps/cli/dist/state/index.js"),
    dist("packages/store-postgres/dist/index.js"),
    dist("packages/store-postgres/dist/testing/index.js"),
    // The zod the tools package uses (the repository root does not depend on it).
    dist("packages/tools/node_modules/zod/index.js"),
  ]);
  progress("stores: starting a throwaway PostgreSQL server on loopback");
  const cluster = await startingOnServerCpu(() => testing.startThrowawayCluster());
  cleanup.add(() => cluster.stop());
  const pgState = await postgres.openPostgresState({ url: cluster.url });
  cleanup.add(() => pgState.close());
  const sqliteState = sqlite.SqliteStateStore.open(cleanup.tempFolder("agent-bench-state-"));
  cleanup.add(() => sqliteState.close());
  const stores = {
    memory: new policy.InMemoryApprovalStore(),
    sqlite: sqliteState.approvals,
    postgres: pgState.approvals,
  };

  const registry = new tools.ToolRegistry();
  registry.register(
    tools.defineTool({
      name: "note",
      description: "Does nothing, after approval.",
      schema: z.object({ n: z.number() }),
      effect: "write",
      execute: () => "ok",
    }),
  );
  const policyRules = policy.definePolicy({ rules: [{ tool: "note", decision: "ask" }] });
  const approvedCall = async (store, index) => {
    const env = {
      registry,
      gate: policy.createPolicyGate({ policy: policyRules, approvals: store }),
      runId: `run_${index}`,
      cwd: REPO_ROOT,
    };
    const call = { name: "note", input: { n: index } };
    const held = await tools.executeToolCall(call, env);
    if (held.type !== "waiting") throw new Error(`expected a held call, got ${JSON.stringify(held)}`);
    await store.grantApproval(held.requestId);
    const ran = await tools.executeToolCall(call, env);
    if (ran.type !== "observation" || !ran.ok)
      throw new Error(`expected the approved call to run: ${JSON.stringify(ran)}`);
  };

  const samples = { memory: [], sqlite: [], postgres: [] };
  let next = 0;
  for (const store of Object.values(stores))
    for (let index = 0; index < 20; index += 1) await approvedCall(store, next++);
  for (let round = 0; round < rounds; round += 1) {
    progress(`stores: round ${round + 1}/${rounds}: ${calls} approved calls on each store`);
    for (const [kind, store] of Object.entries(stores)) {
      const started = performance.now();
      for (let index = 0; index < calls; index += 1) await approvedCall(store, next++);
      samples[kind].push((performance.now() - started) / calls);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([kind, values]) => [kind, median(values)]));
}
