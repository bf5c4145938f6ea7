// The per-command help of the commands this change adds or extends, kept here for the per-command
// help table (`agent <command> --help`, `agent help <command>`) to take in when the two meet.
import { CHAT_COMMANDS } from "./chat-commands.js";

/** One command's help: its usage line, what it does, its options, an example. */
export interface SessionCommandHelp {
  usage: string;
  summary: string;
  options: readonly (readonly [string, string])[];
  example: string;
}

/** Help of `agent chat`, `agent run --continue` and `agent audit --verbose`. */
export const SESSION_COMMAND_HELP: Readonly<
  Record<"chat" | "run --continue" | "audit --verbose", SessionCommandHelp>
> = Object.freeze({
  chat: {
    usage: "agent chat [--max-turns N]",
    summary:
      "A conversation on one agent run: each prompt goes on with the same run (its history, approvals and taint), every tool call through the gate, a held call asked about inline. Ctrl-C cancels the turn that runs; a second Ctrl-C, Ctrl-C at the prompt, Ctrl-D or /quit leaves.",
    options: [
      ["--max-turns N", "model turns each prompt may take (default: model.maxTurns)"],
      ...Object.entries(CHAT_COMMANDS).map(([command, what]) => [command, what] as const),
    ],
    example: "agent chat",
  },
  "run --continue": {
    usage: "agent run --continue <runId> <prompt> [--json] [--max-turns N]",
    summary:
      'Gives a stopped agent run (completed, max turns, interrupted, failed) a new prompt and drives it on in the same run record. A waiting run is refused (decide its calls and "agent resume" it first), as is an unknown id: exit 2.',
    options: [
      ["--json", "print only the run's final document"],
      ["--max-turns N", "model turns the new prompt may take"],
    ],
    example: 'agent run --continue run_0b7c… "now write the summary to notes.md"',
  },
  "audit --verbose": {
    usage:
      "agent audit [--verbose] [--json] [--follow] [--run ID] [--tool PATTERN] [--since WHEN] [--tail N]",
    summary:
      "The audit trail as the story of its runs: one line per step (prompt, model turn, call decided, held, approved, finished, run stopped, sandbox connections with host and verdict). --verbose prints every event with its fields; --json every event whole.",
    options: [["--verbose", "every event, plumbing included (handshakes, listings, each MCP request)"]],
    example: "agent audit --run run_0b7c…",
  },
});
