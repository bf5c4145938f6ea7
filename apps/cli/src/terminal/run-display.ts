import type { AgentEnvironment, PendingCall } from "@agent/loop";
import type { RedactingStream } from "@agent/mcp-transport";
import type { ModelUsage } from "@agent/models";
import type { AgentEvent, EventSink, ToolCallOutcome } from "@agent/tools";
import type { ModelPrices } from "../config/model-config.js";
import { type CliIo, type Style, safeLine, safeText, styleFor, writeLine } from "./io.js";
import { progressLine } from "./progress-line.js";
import { previewResult } from "./result-preview.js";
import { describeUsage } from "./usage-line.js";

const SPINNER_FRAMES = Object.freeze(["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]);
const SPINNER_INTERVAL_MS = 80;
const ARGUMENT_PREVIEW_CHARS = 80;

/** What an agent run shows as it goes: the hooks of the loop, and a sink for the gate's decisions. */
export interface RunDisplay {
  hooks: Pick<AgentEnvironment, "onText" | "onModelRequest" | "onToolCall" | "onProgress">;
  /** Receives the run's events, to learn each call's policy decision. */
  events: EventSink;
  /** Ends the current line of streamed text and stops the spinner. */
  finish(): void;
}

/** A display that shows nothing, for `--json` (stdout carries only the final document). */
export const SILENT_RUN_DISPLAY: RunDisplay = Object.freeze({
  hooks: {},
  events: { emit() {} },
  finish() {},
});

/**
 * The terminal display of a run: the assistant's text streamed to stdout; one line per tool call on
 * stderr (decision and outcome) and the first lines of its result (text as text, capped, escaped).
 * When stderr is a terminal, one live line below them: a spinner with the tokens used so far while
 * the model is thinking (and their cost, where the configuration gives prices), a tool's progress
 * bar while it reports progress. Elsewhere no live line and no escape codes, so logs stay plain.
 * Everything that came from the model or a server is escaped, and the streamed text goes through
 * the redactor as a stream, so a secret split across two pieces is removed too.
 */
export function createRunDisplay(io: CliIo, options: { prices?: ModelPrices | undefined } = {}): RunDisplay {
  const style = styleFor(io.stderr, io.env);
  const live = Boolean(io.stderr.isTTY);
  const decisions = new Map<string, Extract<AgentEvent, { type: "tool_call_decided" }>>();
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  let timer: ReturnType<typeof setInterval> | undefined;
  // Whether the live line (spinner or progress) is on the screen, to be cleared before other output.
  let liveLine = false;
  let frame = 0;
  let openLine = false;
  let text: RedactingStream | undefined;

  const showLive = (line: string) => {
    io.stderr.write(`\r\u001b[K${style.dim(line)}`);
    liveLine = true;
  };
  const clearLive = () => {
    if (!liveLine) return;
    io.stderr.write("\r\u001b[K");
    liveLine = false;
  };
  const nextFrame = () => {
    frame = (frame + 1) % SPINNER_FRAMES.length;
    return SPINNER_FRAMES[frame] as string;
  };
  const stopSpinner = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    clearLive();
  };
  const showText = (shown: string) => {
    if (shown === "") return;
    io.stdout.write(safeText(shown));
    openLine = !shown.endsWith("\n");
  };
  // What the redacting stream still holds back: shown once the model's answer is complete.
  const flushText = () => {
    showText(text?.end() ?? "");
    text = undefined;
  };
  const endText = () => {
    flushText();
    if (openLine) io.stdout.write("\n");
    openLine = false;
  };

  return {
    events: {
      emit(event) {
        if (event.type === "tool_call_decided") decisions.set(event.callId, event);
        if (event.type === "model_request_finished") {
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
        }
      },
    },
    hooks: {
      onModelRequest(phase) {
        if (phase === "finished") {
          stopSpinner();
          return flushText();
        }
        if (!live) return;
        const spent =
          usage.inputTokens + usage.outputTokens > 0 ? ` ${describeUsage(usage, options.prices)} so far` : "";
        timer = setInterval(() => showLive(`${nextFrame()} thinking…${spent}`), SPINNER_INTERVAL_MS);
        timer.unref();
      },
      onText(delta) {
        stopSpinner();
        if (delta === "") return;
        text ??= io.redactor?.stream();
        showText(text ? text.push(delta) : delta);
      },
      onToolCall(call, outcome) {
        stopSpinner();
        endText();
        writeLine(io.stderr, describeCall(call, outcome, decisions.get(call.callId), style));
        decisions.delete(call.callId);
        if (outcome.type === "observation" && outcome.ok) {
          for (const line of previewResult(outcome.output)) writeLine(io.stderr, style.dim(`    │ ${line}`));
        }
      },
      onProgress(progress, call) {
        if (!live) return;
        stopSpinner();
        endText();
        showLive(`  ${progressLine(call.toolName, progress, nextFrame())}`);
      },
    },
    finish() {
      stopSpinner();
      endText();
    },
  };
}

/** `  ⚙ name {"arg":…}  allowed (policy) → ok`, on one line, every part escaped. */
function describeCall(
  call: PendingCall,
  outcome: ToolCallOutcome,
  decided: Extract<AgentEvent, { type: "tool_call_decided" }> | undefined,
  style: Style,
): string {
  const argumentsPreview =
    call.arguments.length > ARGUMENT_PREVIEW_CHARS
      ? `${call.arguments.slice(0, ARGUMENT_PREVIEW_CHARS)}…`
      : call.arguments;
  const head = `  ${style.bold(safeLine(call.toolName))} ${style.dim(safeLine(argumentsPreview))}`;
  const decision =
    decided === undefined
      ? "not run"
      : decided.decision === "allow"
        ? `allowed (${decided.via ?? "policy"})`
        : decided.decision === "deny"
          ? "denied"
          : "held";
  if (outcome.type === "waiting") {
    // The guard's hold says so: the person must know a rule allowed it and why it waits all the same.
    const why =
      outcome.heldBy === "tainted_flow"
        ? `held by the flow guard: the run has read untrusted content (${(outcome.taint ?? []).map((source) => safeLine(source.name)).join(", ")})`
        : "held for approval";
    return `${head}  ${style.yellow(`${why} (request ${safeLine(outcome.requestId)})`)}`;
  }
  if (outcome.ok) return `${head}  ${decision} → ${style.green("ok")}`;
  return `${head}  ${decision} → ${style.red(safeLine(outcome.error))}: ${safeLine(outcome.message)}`;
}
