import { createInterface, type Interface } from "node:readline";
import { type CliIo, isInteractive } from "../terminal/io.js";

/** What the person typed at the chat prompt. */
export type ChatInput = { type: "line"; text: string } | { type: "end" } | { type: "interrupt" };

/** The chat's prompt line: reads one input at a time. */
export interface ChatInputSource {
  read(prompt: string, signal: AbortSignal): Promise<ChatInput>;
  close(): void;
}

/** Lines typed earlier, offered again by the arrow keys (the readline default size). */
const HISTORY_SIZE = 30;

/**
 * The chat's input. On a terminal, a line editor (arrow keys, history) opened for each line and
 * closed before the turn runs, so the approval prompt of a held call reads stdin alone and Ctrl-C
 * during a turn is a signal again (see TurnInterrupts); Ctrl-C at the prompt is `interrupt`, Ctrl-D
 * `end`. Elsewhere (lines piped in) one reader queues every line, so none is lost between turns.
 */
export function createChatInput(io: CliIo): ChatInputSource {
  return isInteractive(io) ? terminalInput(io) : pipedInput(io);
}

function terminalInput(io: CliIo): ChatInputSource {
  const history: string[] = [];
  return {
    read(prompt, signal) {
      const reader = createInterface({
        input: io.stdin,
        output: io.stderr,
        terminal: true,
        history: [...history],
        historySize: HISTORY_SIZE,
        removeHistoryDuplicates: true,
      });
      return new Promise<ChatInput>((resolve) => {
        let answered = false;
        const finish = (input: ChatInput) => {
          if (answered) return;
          answered = true;
          signal.removeEventListener("abort", onAbort);
          // Closed before the turn runs: its keypress listener leaves stdin, and the terminal is
          // back in its normal mode (Ctrl-C a signal again, a held call's prompt reads alone).
          reader.close();
          if (input.type === "line" && input.text.trim() !== "") {
            history.unshift(input.text);
            history.length = Math.min(history.length, HISTORY_SIZE);
          }
          resolve(input);
        };
        const onAbort = () => finish({ type: "end" });
        reader.once("line", (text) => finish({ type: "line", text }));
        reader.once("close", () => finish({ type: "end" }));
        reader.once("SIGINT", () => {
          io.stderr.write("\n");
          finish({ type: "interrupt" });
        });
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        reader.setPrompt(prompt);
        reader.prompt();
      });
    },
    close() {},
  };
}

function pipedInput(io: CliIo): ChatInputSource {
  let reader: Interface | undefined;
  const lines: string[] = [];
  let ended = false;
  let waiting: ((input: ChatInput) => void) | undefined;
  const deliver = () => {
    if (waiting === undefined) return;
    const next = lines.shift();
    if (next === undefined && !ended) return;
    const resolve = waiting;
    waiting = undefined;
    resolve(next === undefined ? { type: "end" } : { type: "line", text: next });
  };
  return {
    read(prompt, signal) {
      reader ??= createInterface({ input: io.stdin, terminal: false })
        .on("line", (text) => {
          lines.push(text);
          deliver();
        })
        .on("close", () => {
          ended = true;
          deliver();
        });
      // A person typing without a line editor (stderr redirected) still sees where to type; a
      // script piping prompts in gets no prompt text in its log.
      if (io.stdin.isTTY) io.stderr.write(prompt);
      return new Promise<ChatInput>((resolve) => {
        if (signal.aborted) return resolve({ type: "end" });
        const onAbort = () => {
          waiting = undefined;
          resolve({ type: "end" });
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiting = (input) => {
          signal.removeEventListener("abort", onAbort);
          resolve(input);
        };
        deliver();
      });
    },
    close() {
      reader?.close();
    },
  };
}
