import { existsSync } from "node:fs";
import { isRecord } from "@agent/base";
import { MIN_SECRET_LENGTH } from "@agent/mcp-transport";
import { z } from "zod";
import { type ConfigIssue, issuesFromZod } from "./config-issues.js";
import { type Environment, expandVariables } from "./expand-variables.js";
import { invalidConfig, readConfigText } from "./load-config.js";
import { parseJsonText } from "./parse-json-text.js";
import {
  NO_TEAM,
  readStateTeamFields,
  STATE_TEAM_FIELDS,
  type StateTeamConfig,
} from "./state-team-config.js";

/** Where the durable state lives: the configuration file's `state` key, defaults filled in. */
export interface StateConfig {
  /**
   * A `postgres://` URL (after `${VAR}` expansion): approvals, runs and the audit trail are shared by
   * every process pointed at it. Unset: the SQLite state directory of this machine. Never printed.
   */
  url: string | undefined;
  /** Where `agent audit` reads from: `postgres` (default with a URL; the JSONL file is written too) or `file`. */
  audit: "postgres" | "file";
  /** The keys a team's machines share outside the database (with a URL only). */
  team: StateTeamConfig;
}

/** The JSON form of `state`. */
export const STATE_CONFIG_SCHEMA = z
  .strictObject({
    url: z.string().min(1, { message: "may not be empty" }).optional(),
    audit: z.enum(["postgres", "file"]).optional(),
    ...STATE_TEAM_FIELDS,
  })
  .optional();

/** The state configuration when the file names none (or there is no file). */
export const LOCAL_STATE: StateConfig = Object.freeze({ url: undefined, audit: "file", team: NO_TEAM });

/**
 * Reads the `state` entry of a parsed configuration: validated, `${VAR}` expanded. Problems are
 * returned with their field path and never a value; `substituted` are the values taken from the
 * environment (secrets for every output).
 */
export function readStateEntry(
  raw: unknown,
  env: Environment,
): { state: StateConfig; issues: ConfigIssue[]; substituted: string[] } {
  const parsed = STATE_CONFIG_SCHEMA.safeParse(raw);
  if (!parsed.success) {
    return {
      state: LOCAL_STATE,
      issues: issuesFromZod(parsed.error, STATE_CONFIG_SCHEMA, ["state"]),
      substituted: [],
    };
  }
  if (!parsed.data?.url) {
    const needsUrl = (
      ["audit", "identityKey", "approvers", "signingKey", "auditKey", "auditWriters"] as const
    ).filter(
      (field) => parsed.data?.[field] !== undefined && !(field === "audit" && parsed.data.audit === "file"),
    );
    if (needsUrl.length > 0) {
      return {
        state: LOCAL_STATE,
        issues: needsUrl.map((field) => ({
          path: `state.${field}`,
          message: "needs state.url (a team's database)",
        })),
        substituted: [],
      };
    }
    return { state: LOCAL_STATE, issues: [], substituted: [] };
  }
  const expanded = expandVariables(parsed.data.url, env);
  if (!expanded.ok) {
    const message =
      expanded.problem === "missing_variable"
        ? `environment variable ${expanded.variable} is not set (needed by state.url); set it`
        : // biome-ignore lint/suspicious/noTemplateCurlyInString: the syntax of a reference, shown to the user.
          "has a malformed variable reference; write ${NAME} or ${NAME:-default}";
    return { state: LOCAL_STATE, issues: [{ path: "state.url", message }], substituted: [] };
  }
  if (!/^postgres(ql)?:\/\//.test(expanded.value)) {
    return {
      state: LOCAL_STATE,
      issues: [
        {
          path: "state.url",
          message: "must be a postgres:// URL (postgres://user:password@host:port/database)",
        },
      ],
      substituted: expanded.substituted,
    };
  }
  const credentials = urlCredentials(expanded.value);
  const password = decodedPassword(expanded.value);
  if (password.length > 0 && password.length < MIN_SECRET_LENGTH) {
    return {
      state: LOCAL_STATE,
      issues: [
        {
          path: "state.url",
          message: `holds a password shorter than ${MIN_SECRET_LENGTH} characters, too short to be redacted from output; use a longer one`,
        },
      ],
      substituted: [...expanded.substituted, ...credentials],
    };
  }
  const team = readStateTeamFields(parsed.data, env);
  return {
    state: { url: expanded.value, audit: parsed.data.audit ?? "postgres", team: team.team },
    issues: team.issues,
    substituted: [...expanded.substituted, expanded.value, ...credentials, ...team.substituted],
  };
}

/**
 * The `state` key of the configuration file at `file`, for commands that need the state but not the
 * servers (`approvals`, `audit`, `runs`): a missing file means the local SQLite state, as before.
 */
export function readStateConfigOf(file: string, env: Environment): { state: StateConfig; secrets: string[] } {
  if (!existsSync(file)) return { state: LOCAL_STATE, secrets: [] };
  const text = readConfigText(file);
  const raw = parseJsonText(text, file);
  const entry = isRecord(raw) ? raw.state : undefined;
  const { state, issues, substituted } = readStateEntry(entry, env);
  if (issues.length > 0) throw invalidConfig(file, "config_invalid", issues);
  return { state, secrets: substituted };
}

/** The URL's password, percent-decoded ("" when it has none). */
function decodedPassword(text: string): string {
  try {
    return decodeURIComponent(new URL(text).password);
  } catch {
    return "";
  }
}

function urlCredentials(text: string): string[] {
  try {
    const url = new URL(text);
    return [url.username, url.password, decodeURIComponent(url.password)].filter((part) => part.length > 0);
  } catch {
    return [];
  }
}
