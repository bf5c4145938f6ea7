import { approvalsListCommand } from "../commands/approvals.js";
import { auditCommand } from "../commands/audit.js";
import { runsListCommand } from "../commands/runs.js";
import { type ToolsListingDeps, toolsCommand } from "../commands/tools.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, safeLine, writeLine } from "../terminal/io.js";
import { describeUsage } from "../terminal/usage-line.js";
import type { ChatState } from "./chat-state.js";
import { CHAT_COMMANDS } from "./slash-commands.js";

/** A slash command's outcome: keep chatting, or leave. */
export type SlashOutcome = "stay" | "quit";

/** What the slash commands need: the tools listing, the state (approvals, runs) and the audit trail. */
export type SlashCommandDeps = ToolsListingDeps & Pick<Runtime, "state" | "auditSource">;

/**
 * Runs one slash command through the same code as the CLI command of the same name (its output
 * as that command prints it); an unknown one says which there are.
 */
export async function runSlashCommand(
  runtime: SlashCommandDeps,
  io: CliIo,
  chat: ChatState,
  line: string,
  signal: AbortSignal,
): Promise<SlashOutcome> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  switch (name) {
    case "/quit":
    case "/exit":
      return "quit";
    case "/help":
      for (const [command, what] of Object.entries(CHAT_COMMANDS)) {
        writeLine(io.stderr, `  ${command.padEnd(11)} ${what}`);
      }
      writeLine(
        io.stderr,
        "  Anything else is a prompt: it goes on with the same run. Ctrl-C cancels a turn.",
      );
      return "stay";
    case "/tools":
      await toolsCommand(runtime, io, { format: "table" }, signal);
      return "stay";
    case "/approvals":
      await approvalsListCommand(runtime, io, { json: false, pending: true });
      return "stay";
    case "/runs":
      await runsListCommand(runtime, io, { json: false });
      return "stay";
    case "/audit":
      if (chat.runId === undefined) {
        writeLine(io.stderr, "No run yet: the chat's run starts with its first prompt.");
        return "stay";
      }
      await auditCommand(
        runtime.auditSource,
        io,
        {
          json: false,
          follow: false,
          verify: false,
          verbose: rest.includes("--verbose"),
          auditFilter: { runId: chat.runId, tool: undefined, since: undefined, tail: undefined },
        },
        signal,
      );
      return "stay";
    case "/model":
      writeLine(io.stderr, `  model  ${safeLine(`${chat.provider} ${chat.model}`)}`);
      if (chat.runId !== undefined) writeLine(io.stderr, `  run    ${safeLine(chat.runId)}`);
      writeLine(io.stderr, `  used   ${describeUsage(chat.usage, chat.prices)}`);
      return "stay";
    default:
      writeLine(
        io.stderr,
        `Unknown command ${safeLine(JSON.stringify(name))}: ${Object.keys(CHAT_COMMANDS).join(", ")}.`,
      );
      return "stay";
  }
}
