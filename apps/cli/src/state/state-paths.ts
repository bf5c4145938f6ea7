import { dirname, join, resolve } from "node:path";

/** The environment variable naming the state directory. */
export const STATE_DIR_ENV_VARIABLE = "AGENT_STATE_DIR";

/** The state directory, beside the configuration file, when neither flag nor environment names one. */
export const DEFAULT_STATE_DIR = ".agent";

/** The SQLite file inside the state directory. */
export const STATE_DB_FILE = "state.db";

/** The JSONL audit trail inside the state directory. */
export const AUDIT_LOG_FILE = "audit.jsonl";

/**
 * The state directory to use: `flag`, else `env.AGENT_STATE_DIR`, else `.agent` beside `configFile`
 * (so every command naming the same config finds the same state, from any directory), else `.agent`
 * in `cwd`. Relative paths are resolved against `cwd`; empty values count as unset.
 */
export function resolveStateDir(options: {
  flag?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The configuration file in use (it need not exist). */
  configFile?: string;
}): string {
  const fromEnv = options.env?.[STATE_DIR_ENV_VARIABLE];
  if (options.flag !== undefined && options.flag !== "") return resolve(options.cwd, options.flag);
  if (fromEnv !== undefined && fromEnv !== "") return resolve(options.cwd, fromEnv);
  const base =
    options.configFile === undefined ? options.cwd : dirname(resolve(options.cwd, options.configFile));
  return resolve(base, DEFAULT_STATE_DIR);
}

/** The path of the state database in `stateDir`. */
export function stateDatabasePath(stateDir: string): string {
  return join(stateDir, STATE_DB_FILE);
}

/** The path of the audit trail in `stateDir` (written by `createJsonlEventSink` from `@agent/tools/node`). */
export function auditLogPath(stateDir: string): string {
  return join(stateDir, AUDIT_LOG_FILE);
}
