import { userInfo } from "node:os";
import { createRedactor, type Redactor } from "@agent/mcp-transport";
import type { OAuthCredentialStore } from "@agent/mcp-transport/oauth";
import type { AuditChainExpectations } from "@agent/store-postgres";
import { createEd25519Verifier } from "@agent/store-postgres/keys";
import { type EventSink, fanOutEvents, ToolsError } from "@agent/tools";
import { createJsonlEventSink, type JsonlEventSink } from "@agent/tools/node";
import type { Pool } from "pg";
import {
  type AgentConfig,
  ConfigError,
  collectConfigSecrets,
  loadConfig,
  readStateConfigOf,
  requireConfigPath,
  type StateConfig,
  userConfigPath,
} from "../config/index.js";
import {
  auditLogPath,
  createFileCredentialStore,
  currentRunOwner,
  ensureStateDirectory,
  notRegular,
  openPostgresStateBackend,
  readAuditCheckpoint,
  resolveStateDir,
  SqliteStateStore,
  STATE_ERROR_CODES,
  StateError,
  type StateStore,
  sqliteStateStore,
  writeAuditCheckpoint,
} from "../state/index.js";
import { type CliIo, safeText, writeLine } from "../terminal/io.js";
import { loadIdentityKey } from "./server-identity.js";

/**
 * Where `agent audit` reads the trail: the JSONL file of this machine, or the shared table, with
 * what `--verify` checks it against (writer keys, this machine's checkpoint).
 */
export type AuditSource =
  | { kind: "file"; path: string }
  | { kind: "postgres"; pool: Pool; expectations: () => AuditChainExpectations };

/** The durable part: state database and audit trail, all the approval commands need. */
export interface StateRuntime {
  /** The state directory (absolute): the local audit file, tokens, and the SQLite database when used. */
  stateDir: string;
  /** The configuration file in use (absolute; it may not exist for state-only commands). */
  configFile: string;
  /** Approvals and runs: SQLite here, or the PostgreSQL database of `state.url`. */
  state: StateStore;
  /** OAuth tokens and client registrations of HTTP servers (a 0600 file in the state directory). */
  credentials: OAuthCredentialStore;
  events: EventSink;
  /** The local JSONL audit file (always written, also when the trail goes to PostgreSQL too). */
  auditPath: string;
  /** What `agent audit` reads. */
  auditSource: AuditSource;
  /** The key of server identities: `state.identityKey` when a team shares one, else the state directory's. */
  identityKey(): Buffer;
  /** Why this machine may not approve (its grants would not be run by the agents), if so. */
  grantRefusal: string | undefined;
  /** Flushes the audit trail and closes the database. */
  close(): Promise<void>;
}

/** Global options that locate the configuration and the state. */
export interface RuntimeLocation {
  config: string | undefined;
  stateDir: string | undefined;
  /** `--json`: no prompt may wait for a person (a server's form is declined). */
  json?: boolean;
  /** Who this process's approval decisions are recorded as; the OS user unless set (`agent serve`: `console:<user>`). */
  decidedBy?: string;
}

/**
 * Opens the state (the SQLite database in the state directory, or the PostgreSQL database the
 * configuration's `state.url` names) and the audit trail. The state directory is the flag, then env,
 * then `.agent` beside the configuration file. `stateConfig` is the loaded configuration's, when the
 * caller has it; otherwise only the file's `state` key is read (a missing file means SQLite).
 */
export async function openStateRuntime(
  location: RuntimeLocation,
  io: CliIo,
  stateConfig?: StateConfig,
): Promise<StateRuntime> {
  // Required before anything is created: no state directory where no configuration is.
  const configFile = requireConfigPath({ flag: location.config, env: io.env, cwd: io.cwd }).path;
  const stateDir = resolveStateDir({ flag: location.stateDir, env: io.env, cwd: io.cwd, configFile });
  const { url, audit: auditTo, team } = stateConfig ?? readStateConfigOf(configFile, io.env).state;
  // The directory is created private before the audit file lands in it.
  ensureStateDirectory(stateDir);
  const auditPath = auditLogPath(stateDir);
  const warn = (what: string) => (error: unknown) =>
    writeLine(io.stderr, `warning: ${what} could not be written: ${safeText(String(error))}`);
  // The state first: when it cannot be opened (a FIFO in place of the database, the team's server
  // down), nothing is created beside it, not even the audit file.
  if (url === undefined) {
    const sqlite = SqliteStateStore.open(stateDir, { decidedBy: location.decidedBy ?? currentUserName() });
    const jsonl = openAuditFileOr(auditPath, warn("the audit trail"), () => sqlite.close());
    return {
      stateDir,
      configFile,
      state: sqliteStateStore(sqlite),
      credentials: createFileCredentialStore(stateDir),
      events: jsonl,
      auditPath,
      auditSource: { kind: "file", path: auditPath },
      identityKey: () => loadIdentityKey(stateDir),
      grantRefusal: undefined,
      async close() {
        jsonl.close();
        sqlite.close();
      },
    };
  }
  const shared = await openPostgresStateBackend({
    url,
    owner: currentRunOwner(),
    decidedBy: location.decidedBy ?? currentUserName(),
    team,
    onAuditError: warn("the PostgreSQL audit trail"),
    onAuditCommitted: (head) => {
      try {
        writeAuditCheckpoint(stateDir, head);
      } catch (error) {
        warn("the audit checkpoint")(error);
      }
    },
  });
  const jsonl = openAuditFileOr(auditPath, warn("the audit trail"), () => void shared.store.close());
  return {
    stateDir,
    configFile,
    state: shared.store,
    credentials: createFileCredentialStore(stateDir),
    // Both trails: the file is written before each call it admits runs; the table is shared.
    events: fanOutEvents(jsonl, shared.audit),
    auditPath,
    auditSource:
      auditTo === "postgres"
        ? {
            kind: "postgres",
            pool: shared.pool,
            expectations: () => {
              const checkpoint = readAuditCheckpoint(stateDir);
              return {
                ...(team.auditWriters && { writers: createEd25519Verifier(team.auditWriters) }),
                ...(checkpoint && { checkpoints: [checkpoint] }),
              };
            },
          }
        : { kind: "file", path: auditPath },
    // Never from the database, which every role of the team reads: from the configuration, else per machine.
    identityKey: () => team.identityKey ?? loadIdentityKey(stateDir),
    grantRefusal: shared.grantRefusal,
    async close() {
      jsonl.close();
      await shared.store.close();
    },
  };
}

/** What deciding an approval request needs: the store it is recorded in, the audit trail, and whether this machine may grant. */
export type ApprovalDecidingState = Pick<StateRuntime, "state" | "events" | "grantRefusal">;

/**
 * Throws `state_unsigned_grant` when this machine's approval would not be run by the agents (it has
 * no approver key they trust): call it before granting from any command or prompt.
 */
export function assertMayGrant(runtime: Pick<StateRuntime, "grantRefusal">): void {
  if (runtime.grantRefusal !== undefined) {
    throw new StateError(STATE_ERROR_CODES.unsignedGrant, `Not approved: ${runtime.grantRefusal}.`);
  }
}

// Opens the JSONL audit file; if it cannot be, closes the state already opened (`undo`) and throws.
function openAuditFileOr(
  auditPath: string,
  onError: (error: unknown) => void,
  undo: () => void,
): JsonlEventSink {
  try {
    return createJsonlEventSink(auditPath, { onError });
  } catch (cause) {
    undo();
    if (ToolsError.isInstance(cause) && cause.code === "audit_file_unusable")
      throw notRegular(auditPath, cause);
    throw cause;
  }
}

/** Who takes a decision from this process, for the record of approvals (SQLite and shared alike). */
export function currentUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? "unknown"}`;
  }
}

/**
 * Every configured secret, the model's key included (a server or a model error might echo it). A key
 * shorter than `MIN_SECRET_LENGTH` is a placeholder for a local server (`OPENAI_API_KEY=x`), not redacted.
 */
export function configuredSecrets(config: AgentConfig, env: CliIo["env"]): string[] {
  const { values } = collectConfigSecrets(config);
  const modelKey = config.model ? env[config.model.apiKeyEnv] : undefined;
  return modelKey ? [...values, modelKey] : values;
}

/**
 * The redactor of commands that open only the state (`approvals`, `runs`, `audit`): what they print
 * comes from stored requests and runs, which may hold a configured secret a tool was called with.
 * Only the configuration knows those secrets, so when it does not load (missing, not JSON, invalid)
 * this throws its `ConfigError`, saying why nothing is printed: a guess at the secrets could miss one.
 */
export function stateOnlyRedactor(location: RuntimeLocation, io: CliIo): Redactor {
  const file = requireConfigPath({ flag: location.config, env: io.env, cwd: io.cwd }).path;
  let config: AgentConfig;
  try {
    config = loadConfig(file, io.env, { userFile: userConfigPath(io.env) });
  } catch (cause) {
    if (!ConfigError.isInstance(cause)) throw cause;
    throw new ConfigError(
      cause.code,
      `${cause.message}\nThis command prints stored call inputs, which may hold the configuration's secrets, and cannot redact them while the configuration does not load: fix it (the problems above), then run the command again.`,
      { file, cause },
    );
  }
  return createRedactor(configuredSecrets(config, io.env));
}
