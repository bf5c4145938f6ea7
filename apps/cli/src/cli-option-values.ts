// What each option's value becomes: the parsed, checked settings of a command line.
import type { UnknownOutcomeDecision } from "@agent/loop";
import type { OptionValues } from "./cli-options.js";
import { type AuditFilter, parseSince, parseTail } from "./commands/audit-filter.js";
import { MAX_RUN_TURNS } from "./config/model-config.js";
import { usageError } from "./exit-codes.js";

/** The options of a command line, parsed and checked. */
export interface CliOptions {
  config: string | undefined;
  stateDir: string | undefined;
  json: boolean;
  input: string | undefined;
  /** `tools --format`; without it, a readable table. */
  format: "openai" | "anthropic" | "json" | "table";
  follow: boolean;
  /** `agent audit --verify`: check the shared trail's chain, signatures and this machine's checkpoint. */
  verify: boolean;
  /** `agent audit --verbose`: every event with its fields, not only the story's steps. */
  verbose: boolean;
  /** `agent approvals deny <id> --reason TEXT`: why, kept in the audit trail. */
  denyReason: string | undefined;
  /** `mcp add`: `--transport`, `--env K=V`..., `--header 'K: V'`... as given. */
  serverEntry: { transport: "stdio" | "http" | "sse"; env: string[]; headers: string[] };
  /** `approvals list --pending`: only requests still waiting for a decision. */
  pending: boolean;
  /** `agent audit` filters: `--run`, `--tool`, `--since`, `--tail`. */
  auditFilter: AuditFilter;
  /** `--max-turns N` of `agent run` (per prompt with `--continue`, and in `agent chat`). */
  maxTurns: number | undefined;
  /** `agent run --continue <runId> <prompt>`: the stopped agent run the prompt goes on with. */
  continueRunId: string | undefined;
  /** `--prompt <server>:<name>` of `agent run`: start from an MCP prompt. */
  fromPrompt: string | undefined;
  /** `--attach <server>:<uri>` of `agent run`, repeatable: resources put into the first message. */
  attach: string[];
  /** `--arg k=v`, repeatable (`prompts get`): the prompt's arguments, in order given (a later one wins). */
  promptArgs: Record<string, string>;
  /**
   * `agent resume`'s decisions about calls whose outcome is unknown, by call id: `--rerun <callId>`
   * and `--answer-unknown <callId>`, each repeatable.
   */
  unknownOutcomes: Record<string, UnknownOutcomeDecision>;
  /** `agent serve`: where the console listens, and its TLS files or the explicit `--insecure-http`. */
  serve: { host: string; port: number; tlsCert?: string; tlsKey?: string; insecureHttp: boolean };
}

/** The options' values, checked; throws a usage error for a value out of its range. */
export function readOptions(values: OptionValues): CliOptions {
  const format = values.format ?? "table";
  if (format !== "openai" && format !== "anthropic" && format !== "json" && format !== "table") {
    throw usageError(`--format must be openai, anthropic, json or table, got ${JSON.stringify(format)}.`);
  }
  return {
    config: values.config,
    stateDir: values["state-dir"],
    json: values.json ?? false,
    input: values.input,
    format,
    follow: values.follow ?? false,
    verify: values.verify ?? false,
    verbose: values.verbose ?? false,
    denyReason: values.reason,
    pending: values.pending ?? false,
    serverEntry: {
      transport: readTransport(values.transport),
      env: values.env ?? [],
      headers: values.header ?? [],
    },
    auditFilter: {
      runId: values.run,
      tool: values.tool,
      since: parseSince(values.since),
      tail: parseTail(values.tail),
    },
    maxTurns: parseMaxTurns(values["max-turns"]),
    continueRunId: values.continue,
    promptArgs: readPromptArgs(values.arg ?? []),
    fromPrompt: values.prompt,
    attach: values.attach ?? [],
    unknownOutcomes: readUnknownOutcomes(values.rerun ?? [], values["answer-unknown"] ?? []),
    serve: {
      host: values.host ?? "127.0.0.1",
      port: parsePort(values.port),
      ...(values["tls-cert"] !== undefined && { tlsCert: values["tls-cert"] }),
      ...(values["tls-key"] !== undefined && { tlsKey: values["tls-key"] }),
      insecureHttp: values["insecure-http"] ?? false,
    },
  };
}

function readUnknownOutcomes(
  rerun: readonly string[],
  answerUnknown: readonly string[],
): Record<string, UnknownOutcomeDecision> {
  const decisions: Record<string, UnknownOutcomeDecision> = {};
  for (const callId of rerun) decisions[callId] = "rerun";
  for (const callId of answerUnknown) {
    if (decisions[callId] === "rerun") {
      throw usageError(
        `call ${callId} is given both --rerun and --answer-unknown; choose one: run it again, or tell the model its outcome is unknown.`,
      );
    }
    decisions[callId] = "answer_unknown";
  }
  return decisions;
}

function parseMaxTurns(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_RUN_TURNS) {
    throw usageError(
      `--max-turns must be a whole number from 1 to ${MAX_RUN_TURNS}, got ${JSON.stringify(text)}.`,
    );
  }
  return value;
}

/** `--arg k=v` values as a record; a value may contain `=`, a name may not be empty. */
function readPromptArgs(values: readonly string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const value of values) {
    const separator = value.indexOf("=");
    if (separator <= 0) throw usageError(`--arg takes name=value, got ${JSON.stringify(value)}.`);
    Object.defineProperty(args, value.slice(0, separator), {
      value: value.slice(separator + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return args;
}

function readTransport(text: string | undefined): "stdio" | "http" | "sse" {
  if (text === undefined || text === "stdio" || text === "http" || text === "sse") return text ?? "stdio";
  throw usageError(`--transport must be stdio, http or sse, got ${JSON.stringify(text)}.`);
}

/** `--port`: 0 (any free port) to 65535; the console's default is 7788. */
function parsePort(text: string | undefined): number {
  if (text === undefined) return 7788;
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 65535))
    throw usageError(`--port takes a port number (0 to 65535), got ${JSON.stringify(text)}.`);
  return value;
}
