import { parseArgs } from "node:util";
import type { UnknownOutcomeDecision } from "@agent/loop";
import { type AuditFilter, parseSince, parseTail } from "./commands/audit-filter.js";
import { MAX_RUN_TURNS } from "./config/model-config.js";
import { usageError } from "./exit-codes.js";

/** The commands, as typed. */
export type CommandName =
  | "mcp list"
  | "mcp login"
  | "mcp add"
  | "mcp remove"
  | "mcp get"
  | "mcp logout"
  | "mcp refresh"
  | "call"
  | "approvals list"
  | "approvals show"
  | "approvals approve"
  | "approvals deny"
  | "resume"
  | "run"
  | "chat"
  | "runs list"
  | "runs show"
  | "audit"
  | "serve"
  | "tools"
  | "resources list"
  | "resources read"
  | "prompts list"
  | "prompts get"
  | "config show"
  | "help"
  | "version"
  /** A bare `agent`, or a command group alone (its name the operand): usage on stderr, exit 2. */
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

/** Every option the CLI knows, as `node:util` parseArgs takes them. */
export const OPTIONS = {
  config: { type: "string" },
  "state-dir": { type: "string" },
  json: { type: "boolean" },
  input: { type: "string" },
  format: { type: "string" },
  follow: { type: "boolean" },
  verify: { type: "boolean" },
  verbose: { type: "boolean" },
  reason: { type: "string" },
  pending: { type: "boolean" },
  transport: { type: "string", short: "t" },
  env: { type: "string", short: "e", multiple: true },
  header: { type: "string", short: "H", multiple: true },
  run: { type: "string" },
  tool: { type: "string" },
  since: { type: "string" },
  tail: { type: "string" },
  "max-turns": { type: "string" },
  continue: { type: "string" },
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
export const GLOBAL_OPTIONS: readonly OptionName[] = ["config", "state-dir", "help", "version"];

/** The name of an option, without its dashes. */
export type OptionName = keyof typeof OPTIONS;

/** Which options each command takes besides the global ones. */
export const COMMAND_OPTIONS: Readonly<Record<CommandName, readonly OptionName[]>> = Object.freeze({
  "mcp list": ["json"],
  "mcp login": [],
  "mcp add": ["transport", "env", "header"],
  "mcp remove": [],
  "mcp get": [],
  "mcp logout": [],
  "mcp refresh": ["json"],
  call: ["json", "input"],
  "approvals list": ["json", "pending"],
  "approvals show": ["json"],
  "approvals approve": [],
  "approvals deny": ["reason"],
  resume: ["json", "rerun", "answer-unknown"],
  run: ["json", "max-turns", "prompt", "attach", "arg", "continue"],
  chat: ["max-turns"],
  "runs list": ["json"],
  "runs show": ["json"],
  audit: ["json", "follow", "run", "tool", "since", "tail", "verify", "verbose"],
  serve: ["port", "host", "tls-cert", "tls-key", "insecure-http"],
  tools: ["format"],
  "resources list": ["json"],
  "resources read": ["json"],
  "prompts list": ["json"],
  "prompts get": ["json", "arg"],
  "config show": ["json"],
  help: [],
  version: [],
  usage: [],
});

/** The operands each command takes: `<required>`, `[optional]`, a last `[name...]` any number. */
export const OPERANDS: Readonly<Record<CommandName, readonly string[]>> = Object.freeze({
  "mcp list": [],
  "mcp login": ["<server>"],
  "mcp add": ["<name>", "<command-or-url>", "[args...]"],
  "mcp remove": ["<name>"],
  "mcp get": ["<name>"],
  "mcp logout": ["<server>"],
  "mcp refresh": ["[server...]"],
  call: ["<tool>"],
  "approvals list": [],
  "approvals show": ["<id>"],
  "approvals approve": ["<id>"],
  "approvals deny": ["<id>"],
  resume: ["<runId>"],
  run: ["[prompt]"],
  chat: [],
  "runs list": [],
  "runs show": ["<runId>"],
  audit: [],
  serve: [],
  tools: [],
  "resources list": ["[server]"],
  "resources read": ["<server>", "<uri>"],
  "prompts list": [],
  "prompts get": ["<server>", "<name>"],
  "config show": [],
  help: ["[command...]"],
  version: [],
  usage: ["[group]"],
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
  // `agent <command> --help`: that command's help, whatever else the line holds.
  if (values.help) return { ...readOptions(values), command: "help", operands: positionals };
  const [command, operands] = readCommand(positionals);
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
  if (command === "run" && values.continue !== undefined) checkContinue(values, operands);
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

/** `run --continue <runId>` takes a prompt of its own, and neither `--prompt` nor `--attach`. */
function checkContinue(values: OptionValues, operands: readonly string[]): void {
  if (values.prompt !== undefined || values.attach !== undefined) {
    throw usageError(
      `"agent run --continue" takes a prompt to add to the run; --prompt and --attach start a new one.`,
    );
  }
  if (operands.length === 0 || operands[0]?.trim() === "") {
    throw usageError(`"agent run --continue <runId>" takes <prompt>: the new message for the run.`);
  }
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
    first === "prompts" ||
    first === "config"
  ) {
    const command = `${first} ${second}` as CommandName;
    if (!(command in COMMAND_OPTIONS)) {
      // The group alone: its subcommands' usage, on stderr with exit 2 (see `groupHelp`).
      if (second === "") return ["usage", [first]];
      const choices = {
        mcp: "list, login, logout, add, remove, get or refresh",
        approvals: "list, show, approve or deny",
        runs: "list or show",
        resources: "list or read",
        prompts: "list or get",
        config: "show",
      }[first];
      throw usageError(`Unknown command "agent ${first} ${second}": expected ${first} ${choices}.`);
    }
    return [command, rest];
  }
  if (
    first === "call" ||
    first === "resume" ||
    first === "run" ||
    first === "chat" ||
    first === "audit" ||
    first === "serve" ||
    first === "tools" ||
    first === "help"
  ) {
    return [first, positionals.slice(1)];
  }
  throw usageError(`Unknown command "${first}".`);
}
/** `--port`: 0 (any free port) to 65535; the console's default is 7788. */
function parsePort(text: string | undefined): number {
  if (text === undefined) return 7788;
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 65535))
    throw usageError(`--port takes a port number (0 to 65535), got ${JSON.stringify(text)}.`);
  return value;
}
