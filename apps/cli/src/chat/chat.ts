import { randomUUID } from "node:crypto";
import { continueRun, LOOP_ERROR_CODES, LoopError, type RunResult, resumeRun, startRun } from "@agent/loop";
import type { AgentRunDeps } from "../commands/run.js";
import {
  type AgentSession,
  canTakeOver,
  openAgentSession,
  settleHeldCalls,
} from "../commands/run-session.js";
import { EXIT_CODES, type ExitCode, Interrupted } from "../exit-codes.js";
import { requireModelConfig } from "../runtime/configured-model.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, safeLine, safeText, styleFor, writeLine } from "../terminal/io.js";
import type { TurnInterrupts } from "../terminal/turn-interrupts.js";
import { describeUsage } from "../terminal/usage-line.js";
import { runSlashCommand, type SlashCommandDeps } from "./chat-commands.js";
import { createChatInput } from "./chat-input.js";
import type { ChatState } from "./chat-state.js";

const PROMPT = "› ";

/** What a chat needs: an agent run's environment and prompts, and what its slash commands list. */
export type ChatDeps = AgentRunDeps & SlashCommandDeps & Pick<Runtime, "config">;

/**
 * `agent chat [--max-turns N]`: a conversation on one agent run. The first prompt starts the run;
 * each later one continues it (`continueRun`): the same transcript, taint and approvals, every tool
 * call through the same gate, a held call asked about inline. Ctrl-C cancels the turn that runs (a
 * second one leaves); Ctrl-C at the prompt, Ctrl-D or `/quit` leaves. Slash commands run the CLI's
 * own commands. Exits 0 when left, 130 when a second Ctrl-C stopped it.
 */
export async function chatCommand(
  runtime: ChatDeps,
  io: CliIo,
  options: { maxTurns: number | undefined },
  signal: AbortSignal,
  interrupts: TurnInterrupts,
): Promise<ExitCode> {
  const modelConfig = requireModelConfig(runtime.config);
  const session = await openAgentSession(runtime, io, { json: false, signal });
  const chat: ChatState = {
    runId: undefined,
    provider: modelConfig.provider,
    model: modelConfig.name,
    prices: session.prices,
    usage: { inputTokens: 0, outputTokens: 0 },
    last: undefined,
  };
  const style = styleFor(io.stderr, io.env);
  writeLine(
    io.stderr,
    style.dim(
      `agent chat · ${safeLine(`${chat.provider} ${chat.model}`)} · /help for commands, /quit or Ctrl-D to leave`,
    ),
  );
  const input = createChatInput(io);
  try {
    for (;;) {
      const typed = await input.read(PROMPT, signal);
      if (typed.type !== "line") break;
      const text = typed.text.trim();
      if (text === "") continue;
      if (text.startsWith("/")) {
        if ((await runSlashCommand(runtime, io, chat, text, signal)) === "quit") break;
        continue;
      }
      await runTurn(runtime, io, session, chat, typed.text, {
        maxTurns: options.maxTurns,
        signal,
        interrupts,
      });
      if (signal.aborted) break;
    }
  } finally {
    input.close();
    session.display.finish();
  }
  if (chat.runId !== undefined) writeLine(io.stderr, style.dim(describeLeftRun(chat.runId, chat.last)));
  return EXIT_CODES.ok;
}

interface TurnOptions {
  maxTurns: number | undefined;
  signal: AbortSignal;
  interrupts: TurnInterrupts;
}

/** One prompt: the run's next turns until the model answers, a call is held and answered, or Ctrl-C. */
async function runTurn(
  runtime: AgentRunDeps,
  io: CliIo,
  session: AgentSession,
  chat: ChatState,
  prompt: string,
  options: TurnOptions,
): Promise<void> {
  // The turn's own signal: Ctrl-C cancels this turn's model request and calls, not the chat; the
  // chat's signal (a second Ctrl-C, SIGTERM) stops the turn too.
  const turnController = new AbortController();
  let cancelled = false;
  const release = options.interrupts.claim(() => {
    cancelled = true;
    turnController.abort(new Interrupted("SIGINT"));
  });
  const stop = () => turnController.abort(options.signal.reason);
  if (options.signal.aborted) stop();
  options.signal.addEventListener("abort", stop, { once: true });
  const { signal } = turnController;
  const turn: AgentSession = { ...session, env: { ...session.env, signal } };
  const sessionOptions = { json: false, signal };
  try {
    // Held calls of the previous turn are settled first (a waiting run takes no new prompt): the
    // gate re-checks them (one decided from another shell meanwhile runs or is refused), and on a
    // terminal the ones still pending are asked about again.
    if (chat.last?.status === "waiting") {
      const rechecked = await resumeRun(turn.env, { runId: chat.last.runId, canTakeOver });
      chat.last = await settleHeldCalls(runtime, io, turn, rechecked, sessionOptions);
      // The answer of the turn the held calls ended, on a line of its own before the new prompt's.
      session.display.finish();
      if (chat.last.status === "waiting") {
        describeTurnEnd(io, chat, chat.last, signal.aborted);
        writeLine(io.stderr, "Your prompt was not sent: answer the held calls first.");
        return;
      }
    }
    const turnsForPrompt = options.maxTurns ?? session.maxTurns;
    const budget = session.maxTokens === undefined ? {} : { maxTokens: session.maxTokens };
    const first =
      chat.runId === undefined
        ? await startRun(turn.env, {
            runId: `run_${randomUUID()}`,
            prompt,
            maxTurns: turnsForPrompt,
            ...budget,
            ...(session.system === undefined ? {} : { system: session.system }),
          })
        : await continueRun(turn.env, { runId: chat.runId, prompt, maxTurns: turnsForPrompt, ...budget });
    chat.runId = first.runId;
    chat.last = first;
    chat.last = await settleHeldCalls(runtime, io, turn, first, sessionOptions);
    session.display.finish();
    describeTurnEnd(io, chat, chat.last, cancelled);
  } catch (error) {
    // A run that cannot take this prompt (calls it must settle first, another process took it):
    // said, and the chat goes on; anything else ends it.
    if (!LoopError.isInstance(error) || error.code === LOOP_ERROR_CODES.runNotSaved) throw error;
    writeLine(io.stderr, `agent: ${safeText(error.message)} [${error.code}]`);
  } finally {
    options.signal.removeEventListener("abort", stop);
    release();
    session.display.finish();
  }
}

/** After a turn: the tokens so far, and a line when it did not simply answer. */
function describeTurnEnd(io: CliIo, chat: ChatState, result: RunResult, cancelled: boolean): void {
  chat.usage = result.usage;
  const style = styleFor(io.stderr, io.env);
  switch (result.status) {
    case "completed":
      break;
    case "cancelled":
      writeLine(io.stderr, style.yellow(cancelled ? "Turn cancelled." : "Turn interrupted."));
      break;
    case "waiting":
      writeLine(
        io.stderr,
        style.yellow(
          `Held for approval: ${result.requestIds.map(safeLine).join(", ")}. Your next prompt asks again (or decide with agent approvals approve <id>).`,
        ),
      );
      break;
    case "max_turns":
      writeLine(
        io.stderr,
        style.yellow(`Stopped after ${result.turns} turns (the limit); your next prompt goes on.`),
      );
      break;
    case "failed":
      writeLine(
        io.stderr,
        `${style.red(`error: ${safeText(result.error?.code ?? "failed")}`)}: ${safeText(result.error?.message ?? "")}`,
      );
      break;
  }
  writeLine(io.stderr, style.dim(describeUsage(chat.usage, chat.prices)));
}

/** Where the chat's run was left, and the command that goes on with it. */
function describeLeftRun(runId: string, last: RunResult | undefined): string {
  const run = safeLine(runId);
  if (last?.status === "waiting") {
    return `Run ${run} waits for approval (${last.requestIds.map(safeLine).join(", ")}): decide, then agent resume ${run}`;
  }
  return `Run ${run} is kept; go on with: agent run --continue ${run} "<prompt>"`;
}
