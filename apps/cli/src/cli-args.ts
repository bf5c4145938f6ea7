import { parseArgs } from "node:util";
import type { UnknownOutcomeDecision } from "@agent/loop";
import { type AuditFilter, parseSince, parseTail } from "./commands/audit-filter.js";
import { MAX_RUN_TURNS } from "./config/model-config.js";
import { CliExit, EXIT_CODES, usageError } from "./exit-codes.js";

/** The commands, as typed. */
export type CommandName =
  | "mcp list"
  | "mcp login"
  | "mcp add"
  | "mcp remove"
  | "mcp get"
  | "mcp logout"
  | "call"
  | "approvals list"
  | "approvals show"
  | "approvals approve"
  | "approvals deny"
  | "resume"
  | "run"
  | "runs list"
  | "runs show"
  | "audit"
  | "serve"
  | "tools"
  | "resources list"
  | "resources read"
  | "prompts list"
  | "prompts get"
  | "help"
  | "version"
  /** A bare `agent` (no command): the usage text on stderr, exit 2. */
  | "usage";

/** A parsed command line. */
export interface CliArgs {
  command: CommandName;
  /** Positional arguments after the command words (a tool name, an id). */
  operands: string[];
  config: string | undefined;
  stateDir: string | undefined;
  json: boolean;
  input: string | undefined;
  /** `tools --format`; without it, a readable table. */
  format: "openai" | "anthropic" | "json" | "table";
  follow: boolean;
  /** `agent audit --verify`: check the shared trail's chain, signatures and this machine's checkpoint. */
  verify: boolean;
  /** `mcp add`: `--transport`, `--env K=V`..., `--header 'K: V'`... as given. */
  serverEntry: { transport: "stdio" | "http" | "sse"; env: string[]; headers: string[] };
  /** `approvals list --pending`: only requests still waiting for a decision. */
  pending: boolean;
  /** `agent audit` filters: `--run`, `--tool`, `--since`, `--tail`. */
  auditFilter: AuditFilter;
  /** `--max-turns N` of `agent run`. */
  maxTurns: number | undefined;
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

/** The usage text. */
export const USAGE = `Usage: agent [--config FILE] [--state-dir DIR] <command>

Commands:
  mcp list [--json]                        connect every configured server; list tools, effects, policy, auth
  mcp login <server>                       authorize an HTTP server with OAuth (opens a browser; stores tokens)
  mcp logout <server>                      forget the server's stored OAuth tokens
  mcp add <name> [-e K=V]... -- <command> [args...]       add a stdio server to the configuration file
  mcp add --transport http|sse <name> <url> [-H 'K: V']... add a remote server
  mcp remove <name> | mcp get <name>       remove one server entry, or print it as written
  call <tool> [--input JSON] [--json]      call one tool through the gate (policy, approvals, audit)
  approvals list [--pending] [--json]      requests waiting for a decision, and past ones
  approvals show <id> [--json]             one request whole: its input and everything its digest binds
  approvals approve <id>                   grant one request (used once, for that exact action)
  approvals deny <id>                      deny one request
  run <prompt> [--json] [--max-turns N]    an agent run: the configured model calls tools through the gate
      [--prompt <server>:<name> [--arg k=v]...] [--attach <server>:<uri>]...   start from an MCP prompt, attach resources
  resume <runId> [--json]                  continue a run: re-check held calls, run them if approved, go on
      [--rerun <callId>]... [--answer-unknown <callId>]...   decide about calls whose outcome is unknown
  runs list [--json]                       agent runs and one-call runs, newest first
  runs show <runId> [--json]               one run: status, transcript, pending calls
  audit [--json] [--follow]                the audit trail; filters: --run ID, --tool PATTERN,
        [--since 15m|TIME] [--tail N]    --since a duration or time, --tail the last N (--follow: new only)
  serve [--port N] [--host 127.0.0.1]     the operator console in a browser (a one-time login link is printed);
        [--tls-cert F --tls-key F | --insecure-http]   a non-loopback host needs TLS or --insecure-http
  audit --verify                           check the shared PostgreSQL trail: chain, writer signatures, checkpoint
  tools [--format openai|anthropic|json]   the tools and their policy; or their definitions as model APIs take them
  resources list [server] [--json]         the resources and templates each server advertises
  resources read <server> <uri> [--json]   read one advertised resource through the gate
  prompts list [--json]                    the prompts each server offers, with their arguments
  prompts get <server> <name> [--arg k=v]... [--json]   get one prompt through the gate

Options:
  --version         print the CLI's version
  --config FILE     configuration (else $AGENT_CONFIG, else ./agent.config.json, else ./.mcp.json)
  --state-dir DIR   approvals, runs, audit trail, OAuth tokens (else $AGENT_STATE_DIR, else .agent beside the config)

Exit codes: 0 ok, 1 failed call, 2 usage or configuration error (or a run resume refuses),
3 waiting for approval, 130 interrupted (SIGINT), 143 terminated (SIGTERM).
An agent run exits 0 completed, 1 failed or max turns, 2 usage or configuration (a missing API key),
3 waiting for approval, 130 interrupted.`;

const OPTIONS = {
  config: { type: "string" },
  "state-dir": { type: "string" },
  json: { type: "boolean" },
  input: { type: "string" },
  format: { type: "string" },
  follow: { type: "boolean" },
  verify: { type: "boolean" },
  pending: { type: "boolean" },
  transport: { type: "string", short: "t" },
  env: { type: "string", short: "e", multiple: true },
  header: { type: "string", short: "H", multiple: true },
  run: { type: "string" },
  tool: { type: "string" },
  since: { type: "string" },
  tail: { type: "string" },
  "max-turns": { type: "string" },
  arg: { type: "string", multiple: true },
  prompt: { type: "string" },
  attach: { type: "string", multiple: true },
  rerun: { type: "string", multiple: true },
  "answer-unknown": { type: "string", multiple: true },
  port: { type: "string" },
  host: { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "insecure-http": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** Options every command takes. */
const GLOBAL_OPTIONS: readonly (keyof typeof OPTIONS)[] = ["config", "state-dir", "help", "version"];

/** Which options each command takes besides the global ones. */
const COMMAND_OPTIONS: Record<CommandName, (keyof typeof OPTIONS)[]> = Object.freeze({
  "mcp list": ["json"],
  "mcp login": [],
  "mcp add": ["transport", "env", "header"],
  "mcp remove": [],
  "mcp get": [],
  "mcp logout": [],
  call: ["json", "input"],
  "approvals list": ["json", "pending"],
  "approvals show": ["json"],
  "approvals approve": [],
  "approvals deny": [],
  resume: ["json", "rerun", "answer-unknown"],
  run: ["json", "max-turns", "prompt", "attach", "arg"],
  "runs list": ["json"],
  "runs show": ["json"],
  audit: ["json", "follow", "run", "tool", "since", "tail", "verify"],
  serve: ["port", "host", "tls-cert", "tls-key", "insecure-http"],
  tools: ["format"],
  "resources list": ["json"],
  "resources read": ["json"],
  "prompts list": ["json"],
  "prompts get": ["json", "arg"],
  help: [],
  version: [],
  usage: [],
});

const OPERANDS: Record<CommandName, string[]> = Object.freeze({
  "mcp list": [],
  "mcp login": ["<server>"],
  "mcp add": ["<name>", "<command-or-url>", "[args...]"],
  "mcp remove": ["<name>"],
  "mcp get": ["<name>"],
  "mcp logout": ["<server>"],
  call: ["<tool>"],
  "approvals list": [],
  "approvals show": ["<id>"],
  "approvals approve": ["<id>"],
  "approvals deny": ["<id>"],
  resume: ["<runId>"],
  run: ["[prompt]"],
  "runs list": [],
  "runs show": ["<runId>"],
  audit: [],
  serve: [],
  tools: [],
  "resources list": ["[server]"],
  "resources read": ["<server>", "<uri>"],
  "prompts list": [],
  "prompts get": ["<server>", "<name>"],
  help: [],
  version: [],
  usage: [],
});

/** Parses argv (without node and the script); throws a usage error (exit 2) on anything unexpected. */
export function parseCliArgs(argv: string[]): CliArgs {
  // Not strict: Node's own messages name its API ("Unknown option '--x'. To specify a positional
  // argument starting with a '-', place it at the end of the command after '--'"); we check the
  // tokens ourselves and say it in one line.
  const {
    values: parsedValues,
    positionals,
    tokens,
  } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) if (token.kind === "option") checkOption(token);
  const values = parsedValues as OptionValues;
  if (values.version) return { ...readOptions(values), command: "version" };
  if (positionals.length === 0 && !values.help) return { ...readOptions(values), command: "usage" };
  const [command, operands] = values.help ? ["help" as const, []] : readCommand(positionals);
  for (const option of Object.keys(OPTIONS) as (keyof typeof OPTIONS)[]) {
    if (GLOBAL_OPTIONS.includes(option)) continue;
    if (values[option] !== undefined && !COMMAND_OPTIONS[command].includes(option)) {
      throw usageError(`"agent ${command}" does not take --${option}.`);
    }
  }
  const expected = OPERANDS[command];
  const required = expected.filter((operand) => !operand.startsWith("["));
  const variadic = expected.at(-1)?.endsWith("...]") === true;
  if (operands.length < required.length || (!variadic && operands.length > expected.length)) {
    throw usageError(
      `"agent ${command}" takes ${expected.length ? expected.join(" ") : "no arguments"}, got ${operands.length}.`,
    );
  }
  if (command === "run" && operands.length === 0 && values.prompt === undefined) {
    throw usageError(`"agent run" takes <prompt>, or --prompt <server>:<name> to start from an MCP prompt.`);
  }
  if (values.arg !== undefined && command === "run" && values.prompt === undefined) {
    throw usageError(`--arg gives the arguments of --prompt; "agent run" got --arg without --prompt.`);
  }
  return { ...readOptions(values), command, operands };
}

/** What parseArgs returns for {@link OPTIONS} once {@link checkOption} has passed every token. */
type OptionValues = {
  [Name in keyof typeof OPTIONS]?: (typeof OPTIONS)[Name] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[Name]["type"] extends "string"
      ? string
      : boolean;
};

function readOptions(values: OptionValues): Omit<CliArgs, "command"> {
  const format = values.format ?? "table";
  if (format !== "openai" && format !== "anthropic" && format !== "json" && format !== "table") {
    throw usageError(`--format must be openai, anthropic, json or table, got ${JSON.stringify(format)}.`);
  }
  return {
    operands: [],
    config: values.config,
    stateDir: values["state-dir"],
    json: values.json ?? false,
    input: values.input,
    format,
    follow: values.follow ?? false,
    verify: values.verify ?? false,
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

/** An option token as parseArgs reports it in non-strict mode. */
interface OptionToken {
  name: string;
  rawName: string;
  value?: string | undefined;
  inlineValue?: boolean | undefined;
}

function checkOption(token: OptionToken): void {
  const shown = safeOptionName(token.rawName);
  if (!Object.hasOwn(OPTIONS, token.name)) throw usageError(`Unknown option ${shown}.`);
  const type = OPTIONS[token.name as keyof typeof OPTIONS].type;
  if (type === "boolean" && token.value !== undefined) throw usageError(`${shown} takes no value.`);
  // As Node's strict mode: "--input --json" is a forgotten value, not the value "--json"; "-" (stdin) is a value.
  const optionLike = !token.inlineValue && token.value !== undefined && /^-./.test(token.value);
  if (type === "string" && (token.value === undefined || optionLike)) {
    throw usageError(`${shown} needs a value.`);
  }
}

/** The option as typed, quoted (so a newline in it stays on the line), and cut if it is long. */
function safeOptionName(rawName: string): string {
  return JSON.stringify(rawName.length > 40 ? `${rawName.slice(0, 40)}…` : rawName);
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

function readCommand(positionals: string[]): [CommandName, string[]] {
  const [first = "", second = "", ...rest] = positionals;
  if (
    first === "mcp" ||
    first === "approvals" ||
    first === "runs" ||
    first === "resources" ||
    first === "prompts"
  ) {
    const command = `${first} ${second}` as CommandName;
    if (!(command in COMMAND_OPTIONS)) {
      if (second === "") throw new CliExit(EXIT_CODES.usage, subcommandHelp(first));
      const choices = {
        mcp: "list, login, logout, add, remove or get",
        approvals: "list, show, approve or deny",
        runs: "list or show",
        resources: "list or read",
        prompts: "list or get",
      }[first];
      throw usageError(`Unknown command "agent ${first} ${second}": expected ${first} ${choices}.`);
    }
    return [command, rest];
  }
  if (
    first === "call" ||
    first === "resume" ||
    first === "run" ||
    first === "audit" ||
    first === "serve" ||
    first === "tools" ||
    first === "help"
  ) {
    return [first, positionals.slice(1)];
  }
  throw usageError(`Unknown command "${first}".`);
}

/** `agent approvals` (or `mcp`, `runs`, ...) alone: the usage lines of its subcommands. */
function subcommandHelp(group: string): string {
  const lines = USAGE.split("\n").filter((line) => line.startsWith(`  ${group} `));
  return [`"agent ${group}" needs a subcommand:`, ...lines].join("\n");
}

/** `--port`: 0 (any free port) to 65535; the console's default is 7788. */
function parsePort(text: string | undefined): number {
  if (text === undefined) return 7788;
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 65535))
    throw usageError(`--port takes a port number (0 to 65535), got ${JSON.stringify(text)}.`);
  return value;
}
