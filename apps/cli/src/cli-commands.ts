// The command table: every command, the options and operands each takes, and how the words of a
// command line name one.
import type { OptionName } from "./cli-options.js";
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

/** The command the first words name, and the words after it; throws a usage error for an unknown one. */
export function readCommand(positionals: string[]): [CommandName, string[]] {
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
