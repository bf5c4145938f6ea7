import { createEd25519Verifier } from "@agent/store-postgres/keys";
import { z } from "zod";
import type { ConfigIssue } from "./config-issues.js";
import { type Environment, expandVariables } from "./expand-variables.js";

/** What a team's machines must agree on beside the URL: keys that never go into the database. */
export interface StateTeamConfig {
  /** The key of server identities (32 bytes), the same on every machine; never stored in the database. */
  identityKey: Buffer | undefined;
  /** The approvers' Ed25519 public keys, by key id: given, only grants one of them signed are run. */
  approvers: Readonly<Record<string, string>> | undefined;
  /** This machine's approver key (a private key file outside the state directory), if it approves. */
  signingKey: { id: string; file: string } | undefined;
  /** This machine's audit writer key (a private key file): it signs every audit row this machine appends. */
  auditKey: { id: string; file: string } | undefined;
  /** The audit writers' public keys, by key id: given, `agent audit --verify` requires each row signed by one. */
  auditWriters: Readonly<Record<string, string>> | undefined;
}

const KEY_ID = z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/, {
  message: "must be 1 to 64 letters, digits, '_', '.', '@' or '-'",
});

/** The JSON form of the team fields of `state`. */
export const STATE_TEAM_FIELDS = Object.freeze({
  identityKey: z.string().min(1, { message: "may not be empty" }).optional(),
  approvers: z.record(KEY_ID, z.string().min(1)).optional(),
  signingKey: z.strictObject({ id: z.string(), file: z.string() }).optional(),
  // The id may be a `${VAR}` too: machines sharing one file each write as themselves.
  auditKey: z.strictObject({ id: z.string(), file: z.string() }).optional(),
  auditWriters: z.record(KEY_ID, z.string().min(1)).optional(),
});

/** No team fields: a machine of its own. */
export const NO_TEAM: StateTeamConfig = Object.freeze({
  identityKey: undefined,
  approvers: undefined,
  signingKey: undefined,
  auditKey: undefined,
  auditWriters: undefined,
});

/**
 * Reads the team fields of a validated `state` entry: `${VAR}` expanded in `identityKey` and
 * `signingKey.file`, each public key parsed. Problems come back with their field path, never a value.
 */
export function readStateTeamFields(
  raw: {
    identityKey?: string | undefined;
    approvers?: Record<string, string> | undefined;
    signingKey?: { id: string; file: string } | undefined;
    auditKey?: { id: string; file: string } | undefined;
    auditWriters?: Record<string, string> | undefined;
  },
  env: Environment,
): { team: StateTeamConfig; issues: ConfigIssue[]; substituted: string[] } {
  const issues: ConfigIssue[] = [];
  const substituted: string[] = [];
  const expand = (path: string, text: string): string | undefined => {
    const expanded = expandVariables(text, env);
    if (expanded.ok) {
      substituted.push(...expanded.substituted);
      return expanded.value;
    }
    issues.push({
      path,
      message:
        expanded.problem === "missing_variable"
          ? `environment variable ${expanded.variable} is not set (needed by ${path}); set it`
          : "has a malformed variable reference",
    });
    return undefined;
  };
  let identityKey: Buffer | undefined;
  if (raw.identityKey !== undefined) {
    const text = expand("state.identityKey", raw.identityKey);
    if (text !== undefined && !/^[0-9a-fA-F]{64}$/.test(text)) {
      issues.push({
        path: "state.identityKey",
        message:
          "must be 64 hexadecimal digits (32 bytes), the same on every machine; make one with: openssl rand -hex 32",
      });
    } else if (text !== undefined) {
      identityKey = Buffer.from(text, "hex");
      substituted.push(text);
    }
  }
  for (const field of ["approvers", "auditWriters"] as const) {
    for (const [id, key] of Object.entries(raw[field] ?? {})) {
      try {
        createEd25519Verifier({ [id]: key });
      } catch (error) {
        issues.push({ path: `state.${field}.${id}`, message: (error as Error).message });
      }
    }
  }
  // An empty file (an unset `${VAR:-}`): this machine has no such key, though others sharing the file do.
  const keyFile = (field: "signingKey" | "auditKey") => {
    const entry = raw[field];
    const file = entry && expand(`state.${field}.file`, entry.file);
    const id = entry && expand(`state.${field}.id`, entry.id);
    if (!file || id === undefined) return undefined;
    if (!KEY_ID.safeParse(id).success) {
      issues.push({
        path: `state.${field}.id`,
        message: "must be 1 to 64 letters, digits, '_', '.', '@' or '-'",
      });
      return undefined;
    }
    return { id, file };
  };
  const signingKey = keyFile("signingKey");
  const auditKey = keyFile("auditKey");
  return {
    team: { identityKey, approvers: raw.approvers, signingKey, auditKey, auditWriters: raw.auditWriters },
    issues,
    substituted,
  };
}
