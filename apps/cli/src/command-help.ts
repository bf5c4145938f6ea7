import { CHAT_COMMANDS } from "./chat/slash-commands.js";
import { COMMAND_OPTIONS, type CommandName, OPERANDS } from "./cli-commands.js";
import { GLOBAL_OPTIONS, type OptionName } from "./cli-options.js";
import { usageError } from "./exit-codes.js";

/** The commands that have a help page: every command a user can type (not `help`, `version` or a bare `agent`). */
export type HelpedCommand = Exclude<CommandName, "help" | "version" | "usage">;

/** One command's help: what it does, its options beyond the operands, and an example. */
export interface CommandHelp {
  /** One line: what the command does. */
  summary: string;
  /** What follows `agent <command>` in its synopsis, in place of its operands and options, when they need showing together. */
  synopsis?: string;
  /** Lines that explain more than the summary can (operands, what it prints, exit codes). */
  details?: readonly string[];
  /** A command line to copy, without the leading `agent`. */
  example: string;
}

/**
 * The help of every command, keyed by the command as typed. A command added to `CommandName`
 * without an entry here fails to compile, and the e2e help test runs every entry.
 */
export const COMMAND_HELP: Readonly<Record<HelpedCommand, CommandHelp>> = Object.freeze({
  "mcp list": {
    summary: "connect every configured server; list tools, effects, policy, auth",
    example: "mcp list --json",
  },
  "mcp login": {
    summary: "authorize an HTTP server with OAuth (opens a browser; stores tokens)",
    example: "mcp login github",
  },
  "mcp logout": { summary: "forget the server's stored OAuth tokens", example: "mcp logout github" },
  "mcp add": {
    summary: "add a server to the configuration file (created if absent)",
    synopsis:
      "<name> [-e K=V]... -- <command> [args...]  |  mcp add --transport http|sse <name> <url> [-H 'K: V']...",
    example: "mcp add memory -- npx -y @modelcontextprotocol/server-memory",
  },
  "mcp remove": {
    summary: "remove one server entry from the configuration file",
    example: "mcp remove memory",
  },
  "mcp get": { summary: "print one server entry as written (secrets redacted)", example: "mcp get memory" },
  "mcp refresh": {
    summary: "install again the packages of npx/uvx servers (all of them if none is named)",
    details: [
      "Resolves each package again, installs it into a new directory of the package cache and pins it; the old",
      "install is kept if that fails (exit 1). Approvals of a server whose package changed are voided.",
      "Exit 2 for a server that is not started by a package runner.",
    ],
    example: "mcp refresh memory",
  },
  call: {
    summary: "call one tool through the gate (policy, approvals, audit)",
    details: ["--input takes JSON, - (stdin) or @FILE; a held call exits 3 and prints how to approve it."],
    example: `call mcp__everything__echo --input '{"message":"hi"}'`,
  },
  "approvals list": {
    summary: "requests waiting for a decision, and past ones",
    example: "approvals list --pending",
  },
  "approvals show": {
    summary: "one request whole: its input and everything its digest binds",
    example: "approvals show apr_123",
  },
  "approvals approve": {
    summary: "grant one request (used once, for that exact action)",
    example: "approvals approve apr_123",
  },
  "approvals deny": {
    summary: "deny one request",
    details: ["--reason says why; the audit trail keeps it with the decision (approval_denied)."],
    example: 'approvals deny apr_123 --reason "not on a Friday"',
  },
  run: {
    summary: "an agent run: the configured model calls tools through the gate",
    details: [
      "--continue <runId> gives a stopped run (completed, max turns, interrupted, failed) a new prompt, in the same",
      'run record; a waiting run is refused (decide its calls and "resume" it first), as is an unknown id: exit 2.',
      "Exits 0 completed, 1 failed or max turns, 2 usage or configuration (a missing API key), 3 waiting for approval.",
    ],
    example: `run "List the files in demo/ and summarize todo.md" --max-turns 5`,
  },
  chat: {
    summary: "a conversation: each prompt goes on with the same run (history, approvals, taint)",
    details: [
      "Every tool call passes the gate; a held call is asked about inline. Ctrl-C cancels the turn that runs",
      "(a second one leaves, exit 130); Ctrl-C at the prompt, Ctrl-D or /quit leaves. Inside the chat:",
      ...Object.entries(CHAT_COMMANDS).map(([command, what]) => `  ${command.padEnd(11)} ${what}`),
    ],
    example: "chat --max-turns 10",
  },
  resume: {
    summary: "continue a run: re-check held calls, run them if approved, go on",
    details: ["--rerun / --answer-unknown decide about calls whose outcome is unknown."],
    example: "resume run_123",
  },
  "runs list": { summary: "agent runs and one-call runs, newest first", example: "runs list --json" },
  "runs show": { summary: "one run: status, transcript, pending calls", example: "runs show run_123" },
  audit: {
    summary: "the story of the runs, one line per step; --verify checks the shared PostgreSQL trail",
    details: [
      "--verbose prints every event with its fields (handshakes, listings, each MCP request); --json every event whole.",
      "--since takes a duration (15m, 2h) or a time; --follow prints new events only.",
    ],
    example: "audit --tool 'mcp__everything__*' --since 15m",
  },
  serve: {
    summary:
      "the operator console in a browser: approvals, runs, servers, audit (prints a one-time login link)",
    details: [
      "Binds 127.0.0.1 by default. Another --host needs --tls-cert and --tls-key, or --insecure-http on a network",
      "you trust; from another machine, prefer an SSH tunnel: ssh -L 7788:127.0.0.1:7788 <this host>.",
    ],
    example: "serve --port 7788",
  },
  tools: {
    summary: "the tools and their policy; or their definitions as model APIs take them",
    example: "tools --format anthropic",
  },
  "resources list": {
    summary: "the resources and templates each server (or the one named) advertises",
    example: "resources list everything",
  },
  "resources read": {
    summary: "read one advertised resource through the gate",
    example: "resources read everything demo://resource/static/document/architecture.md",
  },
  "prompts list": {
    summary: "the prompts each server offers, with their arguments",
    example: "prompts list",
  },
  "prompts get": {
    summary: "get one prompt through the gate",
    example: "prompts get everything simple-prompt",
  },
  "config show": {
    summary: "the configuration in use: project and user files merged, and where each setting came from",
    details: [
      "The project file is the nearest agent.config.json (or .mcp.json) from here up to the repository root;",
      "the user file is $XDG_CONFIG_HOME/agent/config.json, else ~/.config/agent/config.json.",
    ],
    example: "config show --json",
  },
});

/** What each option means, wherever a command takes it. */
const OPTION_HELP: Readonly<Record<OptionName, string>> = Object.freeze({
  config:
    "--config FILE        configuration (else $AGENT_CONFIG, else the nearest agent.config.json or .mcp.json)",
  "state-dir":
    "--state-dir DIR      approvals, runs, audit trail, tokens (else $AGENT_STATE_DIR, else .agent beside the config)",
  json: "--json               print one JSON document on stdout",
  input: "--input JSON|-|@FILE the tool's arguments",
  format:
    "--format F           openai, anthropic or json: the definitions as that API takes them (default: a table)",
  follow: "--follow             keep printing new events",
  verify: "--verify             check the shared trail: chain, writer signatures, checkpoint",
  pending: "--pending            only requests still waiting for a decision",
  transport: "-t, --transport T    stdio (default), http or sse",
  env: "-e, --env K=V        a variable for the server, repeatable",
  header: "-H, --header 'K: V'  an HTTP header, repeatable",
  run: "--run ID             only this run's events",
  tool: "--tool PATTERN       only these tools' events (* matches any characters)",
  since: "--since 15m|TIME     only events since then",
  tail: "--tail N             only the last N events",
  "max-turns": "--max-turns N        stop after N model turns (per prompt with --continue and in chat)",
  continue: "--continue RUN       give the stopped run RUN this prompt, in the same run",
  verbose: "--verbose            every event with its fields, not only the story's steps",
  reason: "--reason TEXT        why the request is denied (kept in the audit trail)",
  arg: "--arg k=v            a prompt argument, repeatable",
  prompt: "--prompt S:NAME      start from server S's MCP prompt NAME",
  attach: "--attach S:URI       put server S's resource URI into the first message, repeatable",
  rerun: "--rerun CALL         run a call whose outcome is unknown again, repeatable",
  "answer-unknown": "--answer-unknown C   tell the model call C's outcome is unknown, repeatable",
  port: "--port N             the port to listen on (default 7788; 0: any free port)",
  host: "--host ADDR          the address to bind (default 127.0.0.1)",
  "tls-cert": "--tls-cert FILE      the TLS certificate (PEM), with --tls-key",
  "tls-key": "--tls-key FILE       the TLS private key (PEM), with --tls-cert",
  "insecure-http": "--insecure-http      allow plain HTTP on a non-loopback address (says why it is risky)",
  help: "-h, --help           this help",
  version: "--version            print the CLI's version",
});

const GROUPS = ["mcp", "approvals", "runs", "resources", "prompts", "config"] as const;

/** The global usage text: one line per command, from {@link COMMAND_HELP}. */
export function usageText(agent = "agent"): string {
  const lines = (Object.keys(COMMAND_HELP) as HelpedCommand[]).map((command) => {
    const synopsis = synopsisOf(command);
    const text = COMMAND_HELP[command].summary;
    return synopsis.length <= 40
      ? `  ${synopsis.padEnd(40)} ${text}`
      : `  ${synopsis}\n  ${" ".repeat(40)} ${text}`;
  });
  return [
    `Usage: ${agent} [--config FILE] [--state-dir DIR] <command>`,
    "",
    "Commands:",
    ...lines,
    "",
    "Options:",
    ...GLOBAL_OPTIONS.filter((option) => option !== "help").map((option) => `  ${OPTION_HELP[option]}`),
    "",
    `"${agent} <command> --help" or "${agent} help <command>" prints one command's options and an example.`,
    "Exit codes: 0 ok, 1 failed call, 2 usage or configuration error (or a run resume refuses),",
    "3 waiting for approval, 130 interrupted (SIGINT), 143 terminated (SIGTERM).",
  ].join("\n");
}

/** The global usage text, as printed by `agent --help` launched as `agent`. */
export const USAGE: string = usageText();

/**
 * The help asked for by `agent help <words...>` or `agent <words...> --help`: one command's page, a
 * group's list of subcommands, or the global usage when `words` is empty. Throws a usage error for a
 * command that does not exist.
 */
export function helpFor(words: readonly string[], agent = "agent"): string {
  if (words.length === 0) return usageText(agent);
  const [first = "", second] = words;
  const isGroup = (GROUPS as readonly string[]).includes(first);
  const command = (isGroup && second !== undefined ? `${first} ${second}` : first) as HelpedCommand;
  if (Object.hasOwn(COMMAND_HELP, command)) return commandPage(command, agent);
  if (isGroup && second === undefined) return groupHelp(first, agent);
  throw usageError(`No command "${words.slice(0, isGroup ? 2 : 1).join(" ")}" to show help for.`);
}

/** `agent approvals` (or `mcp`, `runs`, ...) alone: the usage lines of its subcommands. */
export function groupHelp(group: string, agent = "agent"): string {
  const commands = (Object.keys(COMMAND_HELP) as HelpedCommand[]).filter((name) =>
    name.startsWith(`${group} `),
  );
  return [
    `"${agent} ${group}" needs a subcommand:`,
    ...commands.map((command) => `  ${synopsisOf(command).padEnd(40)} ${COMMAND_HELP[command].summary}`),
  ].join("\n");
}

function commandPage(command: HelpedCommand, agent: string): string {
  const help = COMMAND_HELP[command];
  const options = [...COMMAND_OPTIONS[command], ...GLOBAL_OPTIONS.filter((option) => option !== "version")];
  return [
    `Usage: ${agent} ${synopsisOf(command)}`,
    "",
    help.summary,
    ...(help.details ?? []),
    "",
    "Options:",
    ...options.map((option) => `  ${OPTION_HELP[option]}`),
    "",
    "Example:",
    `  ${agent} ${help.example}`,
  ].join("\n");
}

function synopsisOf(command: HelpedCommand): string {
  const { synopsis } = COMMAND_HELP[command];
  if (synopsis !== undefined) return `${command} ${synopsis}`;
  // Each option as its help writes it (`--max-turns N`), without the short form.
  const options = COMMAND_OPTIONS[command].map(
    (option) => `[${(OPTION_HELP[option].split(/\s{2,}/)[0] ?? "").replace(/^-\w, /, "")}]`,
  );
  return [command, ...OPERANDS[command], ...options].join(" ");
}
