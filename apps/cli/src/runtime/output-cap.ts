import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "@agent/base";
import { type Redactor, redactJson } from "@agent/mcp-transport";
import {
  type CappedToolOutput,
  capToolOutput,
  exceedsJsonDepth,
  type Observation,
  observationText,
  type ToolCallOutcome,
} from "@agent/tools";

/** The directory, inside the state directory, holding the full text of outputs that were cut. */
export const OUTPUTS_DIRECTORY = "outputs";

/**
 * A result nested deeper than this is not shown, stored or serialized (JSON.stringify overflows
 * the stack somewhere past a few thousand levels): the observation says so instead.
 */
export const MAX_OUTPUT_DEPTH = 256;

/** Where the whole of a cut output is kept, and what identifies it. */
export interface TruncatedOutput {
  chars: number;
  bytes: number;
  sha256: string;
  /** The file holding the whole text, or null when it could not be written (see `warning`). */
  file: string | null;
}

/** An outcome as the terminal, `--json` and the state database see it: redacted, and capped. */
export interface CappedOutcome {
  outcome: ToolCallOutcome;
  /** Set when the output was cut. */
  truncated?: TruncatedOutput;
  /** Why the whole output could not be kept, when it could not. */
  warning?: string;
}

/**
 * Redacts an outcome and caps the text of its observation at `maxChars` (see `capToolOutput`). A
 * longer output is replaced by its beginning (ending in a marker with its size and sha256) and the
 * whole redacted text is written to `<stateDir>/outputs/<sha256>.txt` (0600), so nothing is lost
 * and nothing large reaches a terminal or the run record. A waiting outcome is returned as it is.
 */
export function capOutcome(
  outcome: ToolCallOutcome,
  options: { maxChars: number; stateDir: string; redactor: Redactor },
): CappedOutcome {
  if (outcome.type === "waiting") return { outcome };
  const clean = redactJson(outcome, options.redactor);
  if (exceedsJsonDepth(clean, MAX_OUTPUT_DEPTH)) {
    const reason = `the tool's result is nested more than ${MAX_OUTPUT_DEPTH} levels deep; it is not shown or kept`;
    return { outcome: placeholderOutcome(clean, reason), warning: reason };
  }
  const capped = capToolOutput(clean, { maxChars: options.maxChars });
  if (!capped.truncated) return { outcome: clean };
  const { chars, bytes, sha256 } = capped;
  let file: string | null = null;
  let warning: string | undefined;
  try {
    file = keepFullOutput(options.stateDir, sha256, observationText(clean));
  } catch (error) {
    warning = `the whole output (${bytes} bytes, sha256 ${sha256}) could not be kept: ${messageOf(error)}`;
  }
  const truncated: TruncatedOutput = { chars, bytes, sha256, file };
  return { outcome: cappedObservation(clean, capped, truncated), truncated, ...(warning ? { warning } : {}) };
}

function cappedObservation(
  observation: Observation,
  capped: CappedToolOutput,
  truncated: TruncatedOutput,
): ToolCallOutcome {
  const { type, callId, toolName } = observation;
  // The capped text replaces whatever was large; `outputTruncated` says where the whole is.
  const shown = observation.ok
    ? {
        type,
        ok: true as const,
        callId,
        toolName,
        output: { content: [{ type: "text", text: capped.text }] },
      }
    : { type, ok: false as const, callId, toolName, error: observation.error, message: capped.text };
  return { ...shown, outputTruncated: truncated } as unknown as ToolCallOutcome;
}

/**
 * The outcome with everything it carried replaced by `reason` (the code, status and ids kept), for
 * a result that cannot be shown or recorded as it is.
 */
export function placeholderOutcome(outcome: ToolCallOutcome, reason: string): ToolCallOutcome {
  if (outcome.type === "waiting") return outcome;
  const { type, callId, toolName } = outcome;
  return outcome.ok
    ? { type, ok: true, callId, toolName, output: { content: [{ type: "text", text: `[${reason}]` }] } }
    : { type, ok: false, callId, toolName, error: outcome.error, message: `${outcome.error}: [${reason}]` };
}

/** Writes `text` to `<stateDir>/outputs/<sha256>.txt` (never through a link), once; returns the path. */
function keepFullOutput(stateDir: string, sha256: string, text: string): string {
  const directory = join(stateDir, OUTPUTS_DIRECTORY);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (!lstatSync(directory).isDirectory()) throw new Error(`${directory} is not a directory`);
  const file = join(directory, `${sha256}.txt`);
  // Written aside and renamed into place: a reader never sees half a file, and a planted link is replaced, not followed.
  const aside = join(directory, `.${sha256}.${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(aside, text, { mode: 0o600, flag: "wx" });
    renameSync(aside, file);
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Renamed into place.
    }
  }
  return file;
}
