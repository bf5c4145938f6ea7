import type { AgentEnvironment, PendingCall } from "@agent/loop";
import type { RedactingStream } from "@agent/mcp-transport";
import type { AgentEvent, EventSink, ToolCallOutcome } from "@agent/tools";
import { type CliIo, type Style, safeLine, safeText, styleFor, writeLine } from "./io.js";

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
 * The terminal display of a run: the assistant's text streamed to stdout, one line per tool call
 * on stderr (decision and outcome), and a spinner on stderr while the model is thinking when stderr
 * is a terminal. Everything that came from the model or a server is escaped, and the streamed text
 * goes through the redactor as a stream, so a secret split across two pieces is removed too.
 */
export function createRunDisplay(io: CliIo): RunDisplay {
  const style = styleFor(io.stderr, io.env);
  const decisions = new Map<string, Extract<AgentEvent, { type: "tool_call_decided" }>>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let openLine = false;
  let text: RedactingStream | undefined;

  const stopSpinner = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    io.stderr.write("\r\u001b[K");
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
      },
    },
    hooks: {
      onModelRequest(phase) {
        if (phase === "finished") {
          stopSpinner();
          return flushText();
        }
        if (!io.stderr.isTTY) return;
        let frame = 0;
        timer = setInterval(() => {
          frame = (frame + 1) % SPINNER_FRAMES.length;
          io.stderr.write(`\r${style.dim(`${SPINNER_FRAMES[frame]} thinking…`)}`);
        }, SPINNER_INTERVAL_MS);
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
      },
      onProgress(progress) {
        if (!io.stderr.isTTY) return;
        const total = progress.total === undefined ? "" : `/${String(progress.total)}`;
        const line = safeLine(`    progress ${String(progress.progress)}${total} ${progress.message ?? ""}`);
        writeLine(io.stderr, style.dim(line.trimEnd()));
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
