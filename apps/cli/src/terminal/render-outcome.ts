import type { ToolCallOutcome, ToolProgress } from "@agent/tools";
import { type CliIo, safeText, styleFor, writeJson, writeLine } from "./io.js";

/** Prints an outcome: one JSON document on stdout with `--json`, else readable text (failures on stderr). */
export function renderOutcome(io: CliIo, runId: string, outcome: ToolCallOutcome, json: boolean): void {
  if (json) {
    if (outcome.type === "waiting") {
      writeJson(io, { type: "waiting", runId, requestId: outcome.requestId, reason: outcome.reason });
    } else {
      const { type: _type, ...observation } = outcome;
      writeJson(io, { type: "observation", runId, observation });
    }
    return;
  }
  const style = styleFor(io.stderr, io.env);
  if (outcome.type === "waiting") {
    writeLine(io.stderr, style.yellow(`Held for approval (request ${outcome.requestId}, run ${runId}).`));
    writeLine(io.stderr, `Approve it with:  agent approvals approve ${outcome.requestId}`);
    writeLine(io.stderr, `then run it with: agent resume ${runId}`);
    return;
  }
  if (outcome.ok) {
    printOutput(io, outcome.output);
    return;
  }
  writeLine(io.stderr, `${style.red(`error: ${outcome.error}`)}: ${safeText(outcome.message)}`);
  for (const issue of outcome.issues ?? []) {
    writeLine(io.stderr, `  ${safeText(issue.path.join(".") || "(input)")}: ${safeText(issue.message)}`);
  }
  if (outcome.content) printContent(io, io.stderr, outcome.content);
}

/** Shows a server's progress notification on a terminal. */
export function renderProgress(io: CliIo, progress: ToolProgress): void {
  if (!io.stderr.isTTY) return;
  const total = progress.total === undefined ? "" : `/${progress.total}`;
  const message = progress.message ? ` ${safeText(progress.message)}` : "";
  writeLine(io.stderr, styleFor(io.stderr, io.env).dim(`  progress ${progress.progress}${total}${message}`));
}

function printOutput(io: CliIo, output: unknown): void {
  if (isMcpOutput(output)) {
    printContent(io, io.stdout, output.content);
    if (output.structuredContent !== undefined) {
      writeLine(io.stdout, safeText(JSON.stringify(output.structuredContent, null, 2)));
    }
    return;
  }
  writeLine(io.stdout, safeText(typeof output === "string" ? output : JSON.stringify(output, null, 2)));
}

function printContent(io: CliIo, stream: NodeJS.WritableStream, content: unknown[]): void {
  const style = styleFor(stream as { isTTY?: boolean }, io.env);
  for (const block of content) {
    const record = block as Record<string, unknown>;
    if (record.type === "text" && typeof record.text === "string") {
      writeLine(stream, safeText(record.text));
    } else {
      writeLine(stream, style.dim(`[${safeText(String(record.type))}${describeBlock(record)}]`));
    }
  }
}

function describeBlock(block: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof block.mimeType === "string") parts.push(block.mimeType);
  if (typeof block.data === "string") parts.push(`${Math.round((block.data.length * 3) / 4 / 1024)} KiB`);
  if (typeof block.uri === "string") parts.push(block.uri);
  const resource = block.resource as Record<string, unknown> | undefined;
  if (resource && typeof resource.uri === "string") parts.push(resource.uri);
  return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}

function isMcpOutput(output: unknown): output is { content: unknown[]; structuredContent?: unknown } {
  return (
    typeof output === "object" && output !== null && Array.isArray((output as { content?: unknown }).content)
  );
}
