import { randomUUID } from "node:crypto";
import pg from "pg";
import { migrate, POSTGRES_MIGRATIONS } from "../src/migrations.js";

/**
 * Brings the database at `databaseUrl` to schema `version` only, as an earlier release left it, then
 * runs `sql` there (rows that release wrote).
 */
export async function migrateOnlyTo(databaseUrl: string, version: number, sql: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  try {
    const client = await pool.connect();
    try {
      await migrate(
        client,
        POSTGRES_MIGRATIONS.filter((step) => step.version <= version),
      );
      await client.query(sql);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/** Creates an empty database in the shared cluster and returns its URL; `drop` removes it. */
export async function createTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Creates an agent and an approver login role (names unique to this call), runs the team grants on
 * the migrated database at `databaseUrl` as its owner, and returns each role's URL; `drop` removes
 * the roles (drop the database first).
 */
export async function createTeamRoles(
  serverUrl: string,
  databaseUrl: string,
  grants: (roles: { agent: string; approver: string }) => string,
): Promise<{ agentUrl: string; approverUrl: string; drop(): Promise<void> }> {
  const suffix = randomUUID().replaceAll("-", "").slice(0, 12);
  const roles = { agent: `agent_${suffix}`, approver: `approver_${suffix}` };
  const owner = new pg.Client({ connectionString: databaseUrl });
  await owner.connect();
  try {
    const database = new URL(databaseUrl).pathname.slice(1);
    for (const role of [roles.agent, roles.approver]) {
      await owner.query(`CREATE ROLE ${role} LOGIN PASSWORD '${role}'`);
      await owner.query(`GRANT CONNECT ON DATABASE ${database} TO ${role}`);
    }
    await owner.query(grants(roles));
  } finally {
    await owner.end();
  }
  const urlOf = (role: string) => {
    const url = new URL(databaseUrl);
    url.username = role;
    url.password = role;
    return url.toString();
  };
  return {
    agentUrl: urlOf(roles.agent),
    approverUrl: urlOf(roles.approver),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        for (const role of [roles.agent, roles.approver]) await client.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await client.end();
      }
    },
  };
}
