import { setTimeout as sleep } from "node:timers/promises";
import { serverOfToolName } from "@agent/mcp-client";
import { type ApprovalRecord, type ApprovalStore, previewInput } from "@agent/policy";
import { askQuestion } from "./ask-question.js";
import { describeNetwork } from "./describe-network.js";
import { agentCommand, type CliIo, safeLine, safeText, styleFor, writeLine } from "./io.js";
import { taintLines } from "./taint-lines.js";

/** Inputs longer than this (as JSON) are shown cut value by value, every key kept. */
export const PROMPT_MAX_INPUT_CHARS = 20_000;

/** How often an open prompt looks whether the request was decided elsewhere, in milliseconds. */
export const PROMPT_POLL_INTERVAL_MS = 250;

/** What the operator answered, or the decision another process took while the prompt was open. */
export type PromptAnswer =
  | "approve"
  | "deny"
  | "always"
  | "interrupted"
  | { decidedElsewhere: ApprovalRecord };

/** Options of {@link promptForApproval}. */
export interface PromptOptions {
  /** Watched while the prompt waits: a decision taken elsewhere ends the prompt. */
  approvals?: ApprovalStore;
  pollIntervalMs?: number;
  /** Offer a third answer, `a`: "always allow this tool" (returned as `always`; the caller acts on it). */
  offerAlwaysAllow?: boolean;
  /** Ask again without showing the request (it is on the screen already); default false. */
  askAgain?: boolean;
}

/**
 * Shows a held call in full (the input the digest binds, every key of it, and the cwd and network
 * it is bound to) and asks the person at the terminal to approve it once or deny it (or, if offered,
 * to always allow the tool); `interrupted` when Ctrl-C ends the prompt. While it waits it watches the request (one look at a time, every
 * {@link PROMPT_POLL_INTERVAL_MS}): approved, denied or voided from another process, it stops
 * asking and returns that decision.
 */
export async function promptForApproval(
  io: CliIo,
  request: ApprovalRecord,
  input: unknown,
  signal: AbortSignal,
  options: PromptOptions = {},
): Promise<PromptAnswer> {
  if (!options.askAgain) showRequest(io, request, input);
  const stop = new AbortController();
  const abort = () => stop.abort();
  signal.addEventListener("abort", abort, { once: true });
  let decidedElsewhere: ApprovalRecord | undefined;
  const watching = options.approvals
    ? watch(
        options.approvals,
        request.id,
        options.pollIntervalMs ?? PROMPT_POLL_INTERVAL_MS,
        stop.signal,
      ).then((record) => {
        if (!record) return;
        decidedElsewhere = record;
        stop.abort();
      })
    : Promise.resolve();
  const question = options.offerAlwaysAllow
    ? "Approve this exact call once? [y/N] (or a: always allow this tool) "
    : "Approve this exact call once? [y/N] ";
  try {
    const answer = await askQuestion(io, question, stop.signal);
    if (options.offerAlwaysAllow && /^\s*a(lways)?\s*$/i.test(answer)) return "always";
    return /^\s*y(es)?\s*$/i.test(answer) ? "approve" : "deny";
  } catch (error) {
    if (decidedElsewhere) return { decidedElsewhere };
    if (signal.aborted) return "interrupted";
    throw error;
  } finally {
    stop.abort();
    signal.removeEventListener("abort", abort);
    await watching;
  }
}

/** Polls `id` until it is no longer pending (returns it) or `signal` aborts (returns `undefined`). */
async function watch(
  approvals: ApprovalStore,
  id: string,
  intervalMs: number,
  signal: AbortSignal,
): Promise<ApprovalRecord | undefined> {
  while (!signal.aborted) {
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return undefined;
    }
    let current: ApprovalRecord | undefined;
    try {
      current = await approvals.getApproval(id);
    } catch {
      // A busy or briefly unreadable store: the operator's own answer still decides; look again later.
      continue;
    }
    if (current && current.status !== "pending") return current;
  }
  return undefined;
}

function showRequest(io: CliIo, request: ApprovalRecord, input: unknown): void {
  const style = styleFor(io.stderr, io.env);
  const server = serverOfToolName(request.toolName);
  writeLine(io.stderr);
  writeLine(io.stderr, style.bold("This call needs your approval."));
  writeLine(io.stderr, `  tool       ${safeLine(`${request.toolName} (${request.effect})`)}`);
  writeLine(io.stderr, `  server     ${server ? safeLine(server) : "local tool"}`);
  if (request.cwd !== undefined) writeLine(io.stderr, `  cwd        ${safeLine(request.cwd)}`);
  if (request.network !== undefined) {
    writeLine(io.stderr, `  network    ${safeLine(describeNetwork(request.network))}`);
  }
  writeLine(io.stderr, `  request    ${safeLine(request.id)}`);
  const taint = taintLines(request);
  for (const line of taint.warning) writeLine(io.stderr, style.yellow(`  ${line}`));
  for (const line of taint.sources) writeLine(io.stderr, `    ${line}`);
  // The input the digest binds (validated), else the call's own.
  const bound = request.input ?? input;
  const whole = JSON.stringify(bound ?? null, null, 2) ?? "null";
  if (whole.length <= PROMPT_MAX_INPUT_CHARS) {
    writeLine(io.stderr, "  arguments (whole)");
    for (const line of whole.split("\n")) writeLine(io.stderr, `    ${safeText(line)}`);
  } else {
    writeLine(
      io.stderr,
      style.yellow(
        `  arguments (cut: long values shortened, every key kept; "${agentCommand(io)} approvals show ${safeLine(request.id)}" prints them whole)`,
      ),
    );
    writeLine(io.stderr, `    ${safeText(previewInput(bound, PROMPT_MAX_INPUT_CHARS))}`);
  }
  const hints = Object.entries(request.unverifiedHints ?? {});
  if (hints.length > 0) {
    writeLine(io.stderr, style.yellow("  annotations declared by the server (unverified, not trusted):"));
    for (const [key, value] of hints) {
      writeLine(io.stderr, `    ${safeLine(key)}: ${safeLine(JSON.stringify(value))}`);
    }
  }
}
