import { type ExecFileOptions, execFile } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** A PostgreSQL server of its own, in a temporary directory, listening on loopback only. */
export interface ThrowawayCluster {
  /** `postgres://` URL of the superuser, with its password. */
  readonly url: string;
  readonly port: number;
  /** The temporary directory holding its data, socket and log; gone once {@link ThrowawayCluster.stop} resolves. */
  readonly directory: string;
  /** A URL for another database of the same server. */
  urlFor(database: string): string;
  /** Creates an empty database (a fresh one per test keeps tests apart) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Stops the server and starts it again on the same port and data (a fault for tests), running
   * `whileDown` in between if given.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Stops the server (fast shutdown) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startThrowawayCluster}. */
export interface ThrowawayClusterOptions {
  /** Where `initdb` and `pg_ctl` are; default: `$AGENT_PG_BIN`, then the newest `/usr/lib/postgresql/<v>/bin`, then `PATH`. */
  binDir?: string;
}

const USER = "agent";

/**
 * Creates and starts a throwaway cluster (initdb, then pg_ctl on 127.0.0.1 and a random free port,
 * with fsync off: it is for tests). Run as root, it runs the server as the `postgres` system user,
 * since PostgreSQL refuses to run as root.
 */
export async function startThrowawayCluster(
  options: ThrowawayClusterOptions = {},
): Promise<ThrowawayCluster> {
  const bin = options.binDir ?? findBinDir();
  const dir = mkdtempSync(join(tmpdir(), "agent-pg-"));
  const owner = process.getuid?.() === 0 ? systemUser("postgres") : undefined;
  const exec = (tool: string, args: string[]) => {
    const execOptions: ExecFileOptions = { cwd: dir, env: { PATH: process.env.PATH ?? "", LANG: "C" } };
    if (owner) Object.assign(execOptions, owner);
    return run(bin ? join(bin, tool) : tool, args, execOptions);
  };
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const password = `pw${Math.random().toString(36).slice(2)}`;
    const passwordFile = join(dir, "pwfile");
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    const data = join(dir, "data");
    await exec("initdb", [
      "-D",
      data,
      "-U",
      USER,
      "--auth=scram-sha-256",
      `--pwfile=${passwordFile}`,
      "-E",
      "UTF8",
    ]);
    const port = await freePort();
    const start = () =>
      exec("pg_ctl", [
        "start",
        "-w",
        "-D",
        data,
        "-l",
        join(dir, "server.log"),
        "-o",
        `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off`,
      ]);
    const stopServer = () => exec("pg_ctl", ["stop", "-w", "-m", "fast", "-D", data]);
    try {
      await start();
    } catch (error) {
      // pg_ctl gave up waiting (a loaded machine), but the server may be up by now: never leave it behind.
      if (existsSync(join(data, "postmaster.pid"))) {
        await exec("pg_ctl", ["stop", "-w", "-m", "immediate", "-D", data]).catch(() => {});
      }
      throw error;
    }
    const urlFor = (database: string) =>
      `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
    let stopped = false;
    return {
      url: urlFor("postgres"),
      port,
      directory: dir,
      urlFor,
      async createDatabase(name) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
        const admin = new pg.Client({ connectionString: urlFor("postgres") });
        await admin.connect();
        try {
          await admin.query(`CREATE DATABASE ${name}`);
        } finally {
          await admin.end();
        }
        return urlFor(name);
      },
      async restart(whileDown) {
        await stopServer();
        try {
          await whileDown?.();
        } finally {
          await start();
        }
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await stopServer();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start a throwaway PostgreSQL cluster: ${describe(error)}`, { cause: error });
  }
}

function findBinDir(): string | undefined {
  const fromEnv = process.env.AGENT_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

function systemUser(name: string): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${name}:`));
  const fields = line?.split(":");
  if (!fields || fields.length < 4) {
    throw new Error(`running as root needs the "${name}" system user to run PostgreSQL; install postgresql`);
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === "string" && stderr.trim()) return stderr.trim().split("\n").slice(-3).join(" | ");
  return error instanceof Error ? error.message : String(error);
}

/** How long a test hook may take to start or stop a throwaway cluster on a loaded two-core machine. */
export const THROWAWAY_CLUSTER_TIMEOUT_MS = 180_000;

/** A throwaway cluster being started, which can be stopped at any moment, even before it is up. */
export interface ThrowawayClusterHandle {
  /** Resolves with the running cluster; rejects if it could not start. */
  readonly ready: Promise<ThrowawayCluster>;
  /** Waits for a start still under way to finish, then stops the cluster and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts a throwaway cluster and returns at once with a handle whose `stop` works whatever the start
 * has reached. Take it in `beforeAll` before awaiting `ready`: a hook that times out then leaves the
 * handle to `afterAll`, which stops the server instead of orphaning it.
 */
export function reserveThrowawayCluster(options: ThrowawayClusterOptions = {}): ThrowawayClusterHandle {
  const ready = startThrowawayCluster(options);
  // A failed start is reported through `ready`; `stop` has nothing to stop then.
  ready.catch(() => {});
  return {
    ready,
    async stop() {
      const cluster = await ready.catch(() => undefined);
      await cluster?.stop();
    },
  };
}
