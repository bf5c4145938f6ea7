// The team setup of the README, for end-to-end tests on a throwaway PostgreSQL cluster: an owner
// who migrates, a least-privilege agent role, an approver role, and the keys each machine holds.
import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPostgresState, postgresTeamGrants } from "@agent/store-postgres";
import { generateEd25519KeyPair } from "@agent/store-postgres/keys";
import type { ThrowawayCluster } from "@agent/store-postgres/testing";
import { CLI_POSTGRES_MIGRATIONS } from "../src/state/postgres-cli-schema.js";
import type { E2eSandbox } from "./e2e-helpers.js";

/** How one machine of the team runs the CLI: its global options and its environment. */
export interface TeamMachine {
  globalArgs: string[];
  env: Record<string, string>;
}

/**
 * A database migrated by its owner, an agent role and an approver role with exactly the grants the
 * README gives, and an approver key: the agent machine trusts its public half, only the approver
 * machine holds the private one. The two machines share one configuration file.
 */
export async function createPostgresTeam(cluster: ThrowawayCluster, sandbox: E2eSandbox) {
  const suffix = randomUUID().replaceAll("-", "").slice(0, 12);
  const database = `roles_${suffix}`;
  const ownerUrl = await cluster.createDatabase(database);
  const owner = await openPostgresState({ url: ownerUrl, extraMigrations: CLI_POSTGRES_MIGRATIONS });
  const roles = { agent: `agent_${suffix}`, approver: `approver_${suffix}` };
  const passwords = { agent: randomBytes(9).toString("hex"), approver: randomBytes(9).toString("hex") };
  try {
    for (const kind of ["agent", "approver"] as const) {
      await owner.pool.query(`CREATE ROLE ${roles[kind]} LOGIN PASSWORD '${passwords[kind]}'`);
      await owner.pool.query(`GRANT CONNECT ON DATABASE ${database} TO ${roles[kind]}`);
    }
    await owner.pool.query(postgresTeamGrants(roles));
  } finally {
    await owner.close();
  }
  const urlOf = (kind: "agent" | "approver") => {
    const url = new URL(ownerUrl);
    url.username = roles[kind];
    url.password = passwords[kind];
    return url.toString();
  };
  const keys = {
    alice: generateEd25519KeyPair(),
    ci: generateEd25519KeyPair(),
    ops: generateEd25519KeyPair(),
  };
  const keyFileOf = (name: keyof typeof keys) => {
    const file = join(sandbox.root, `${name}.pem`);
    writeFileSync(file, keys[name].privateKeyPem, { mode: 0o600 });
    return file;
  };
  const keyFile = keyFileOf("alice");
  sandbox.writeConfig({
    state: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference the CLI expands.
      url: "${AGENT_STATE_URL}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference the CLI expands.
      identityKey: "${AGENT_IDENTITY_KEY}",
      approvers: { alice: keys.alice.publicKey },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: unset on the agent machine, which approves nothing.
      signingKey: { id: "alice", file: "${AGENT_SIGNING_KEY_FILE:-}" },
      // Each machine signs the audit rows it writes with a key of its own.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: each machine's own writer key.
      auditKey: { id: "${AGENT_AUDIT_KEY_ID}", file: "${AGENT_AUDIT_KEY_FILE}" },
      auditWriters: { ci: keys.ci.publicKey, ops: keys.ops.publicKey },
    },
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
  const identityKey = randomBytes(32).toString("hex");
  // One machine: its own state directory, the shared configuration, its variables.
  const machineOf = (name: string, env: Record<string, string>): TeamMachine => ({
    globalArgs: ["--config", sandbox.configPath, "--state-dir", join(sandbox.root, `state-${name}`)],
    env: { AGENT_IDENTITY_KEY: identityKey, ...env },
  });
  const machine = (name: string, env: Record<string, string>) => (args: string[]) => {
    const { globalArgs, env: machineEnv } = machineOf(name, env);
    return sandbox.run([...globalArgs, ...args], { bare: true, env: machineEnv });
  };
  const approverEnv = {
    AGENT_STATE_URL: urlOf("approver"),
    AGENT_SIGNING_KEY_FILE: keyFile,
    AGENT_AUDIT_KEY_ID: "ops",
    AGENT_AUDIT_KEY_FILE: keyFileOf("ops"),
  };
  const agentEnv = {
    AGENT_STATE_URL: urlOf("agent"),
    AGENT_AUDIT_KEY_ID: "ci",
    AGENT_AUDIT_KEY_FILE: keyFileOf("ci"),
  };
  return {
    ownerUrl,
    agentUrl: urlOf("agent"),
    agent: machine("agent", agentEnv),
    agentWithKey: machine("agent", { ...agentEnv, AGENT_SIGNING_KEY_FILE: keyFile }),
    approver: machine("approver", approverEnv),
    /** An approver machine named `name` (its own state directory), for a long-running command such as `serve`. */
    approverMachine: (name: string) => machineOf(name, approverEnv),
    executions: () => sandbox.received("s", "tools/call").length,
  };
}
