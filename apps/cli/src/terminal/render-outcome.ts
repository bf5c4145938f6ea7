import { isRecord } from "@agent/base";
import { canonicalJson, type ToolCallOutcome, type ToolProgress } from "@agent/tools";
import { describeCommandEnd, isCommandOutput } from "./command-output.js";
import { agentCommand, type CliIo, safeLine, safeText, styleFor, writeJson, writeLine } from "./io.js";
import { progressLine } from "./progress-line.js";

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
    // The ids come from the state database, which is only a file: escaped like everything else.
    const [request, run] = [safeLine(outcome.requestId), safeLine(runId)];
    writeLine(io.stderr, style.yellow(`Held for approval (request ${request}, run ${run}).`));
    const agent = agentCommand(io);
    writeLine(io.stderr, `Approve it with:  ${agent} approvals approve ${request}`);
    writeLine(io.stderr, `then run it with: ${agent} resume ${run}`);
    return;
  }
  if (outcome.ok) {
    printOutput(io, outcome.output);
    return;
  }
  // The code, message and issues are one-line fields: a server's newline cannot start a line of ours.
  writeLine(io.stderr, `${style.red(`error: ${safeLine(outcome.error)}`)}: ${safeLine(outcome.message)}`);
  for (const issue of outcome.issues ?? []) {
    writeLine(io.stderr, `  ${safeLine(issue.path.join(".") || "(input)")}: ${safeLine(issue.message)}`);
  }
  if (outcome.content) printContent(io, io.stderr, outcome.content);
}

/**
 * Shows a server's progress notification on a terminal, one line each: the tool's name and a bar
 * when the server gave a total, else the count so far (see {@link progressLine}).
 */
export function renderProgress(io: CliIo, progress: ToolProgress, toolName: string): void {
  if (!io.stderr.isTTY) return;
  writeLine(io.stderr, styleFor(io.stderr, io.env).dim(`  ${progressLine(toolName, progress, "·")}`));
}

function printOutput(io: CliIo, output: unknown): void {
  if (isMcpOutput(output)) {
    printContent(io, io.stdout, output.content);
    if (output.structuredContent !== undefined && !carriesStructuredContent(output)) {
      writeLine(io.stdout, safeText(JSON.stringify(output.structuredContent, null, 2)));
    }
    return;
  }
  if (isCommandOutput(output)) {
    // A command's output as the command printed it (escaped), not as a JSON string of it.
    if (output.stdout !== "")
      io.stdout.write(safeText(output.stdout.endsWith("\n") ? output.stdout : `${output.stdout}\n`));
    if (output.stderr !== "")
      io.stderr.write(safeText(output.stderr.endsWith("\n") ? output.stderr : `${output.stderr}\n`));
    const end = describeCommandEnd(output);
    if (end !== undefined) writeLine(io.stderr, styleFor(io.stderr, io.env).yellow(end));
    return;
  }
  writeLine(io.stdout, safeText(typeof output === "string" ? output : JSON.stringify(output, null, 2)));
}

/**
 * Whether a text block already is the structured content serialized (the MCP spec asks servers to
 * send both): then printing the structured content too would show the same result twice.
 */
function carriesStructuredContent(output: { content: unknown[]; structuredContent?: unknown }): boolean {
  try {
    const expected = canonicalJson(output.structuredContent);
    return output.content.some(
      (block) =>
        isRecord(block) &&
        block.type === "text" &&
        typeof block.text === "string" &&
        /^\s*[[{]/.test(block.text) &&
        canonicalJson(parseOrUndefined(block.text)) === expected,
    );
  } catch {
    // Not representable (too deep): print it as before rather than guess.
    return false;
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function printContent(io: CliIo, stream: NodeJS.WritableStream, content: unknown[]): void {
  const style = styleFor(stream as { isTTY?: boolean }, io.env);
  for (const block of content) {
    if (!isRecord(block)) {
      writeLine(stream, style.dim(`[${safeLine(JSON.stringify(block) ?? String(block))}]`));
    } else if (block.type === "text" && typeof block.text === "string") {
      writeLine(stream, safeText(block.text));
    } else if (
      block.type === "resource" &&
      isRecord(block.resource) &&
      typeof block.resource.text === "string"
    ) {
      // An embedded or read resource's text is shown as text, after one line saying what it is.
      writeLine(stream, style.dim(`[${describeBlock(block)}]`));
      writeLine(stream, safeText(block.resource.text));
    } else {
      writeLine(stream, style.dim(`[${describeBlock(block)}]`));
    }
  }
}

/** One line for a non-text block: its type, MIME type, size and URIs, all escaped (a server chose them). */
export function describeBlock(block: Record<string, unknown>): string {
  const parts: string[] = [String(block.type)];
  if (typeof block.mimeType === "string") parts.push(block.mimeType);
  if (typeof block.data === "string") parts.push(`${Math.round((block.data.length * 3) / 4 / 1024)} KiB`);
  if (typeof block.uri === "string") parts.push(block.uri);
  const resource = isRecord(block.resource) ? block.resource : undefined;
  if (resource && typeof resource.uri === "string") parts.push(resource.uri);
  if (resource && typeof resource.mimeType === "string") parts.push(resource.mimeType);
  // Joined first and escaped whole, so no part can be left out of the escaping.
  return safeLine(parts.join(" "));
}

/** Whether a tool's output is an MCP `CallToolResult` (content blocks). */
export function isMcpOutput(output: unknown): output is { content: unknown[]; structuredContent?: unknown } {
  return (
    typeof output === "object" && output !== null && Array.isArray((output as { content?: unknown }).content)
  );
}
