import { isRecord } from "@agent/base";
import { describeCommandEnd, isCommandOutput } from "./command-output.js";
import { safeLine } from "./io.js";
import { describeBlock, isMcpOutput } from "./render-outcome.js";

/** How much of a tool's result the run display shows as the run goes (the model reads it whole). */
export const RESULT_PREVIEW_LIMITS = Object.freeze({ maxLines: 8, maxLineChars: 160 });

/**
 * The first lines of a tool's result as a person reads them: text as text (a `run_command`'s
 * stdout and stderr, an MCP result's text blocks), anything else as indented JSON. At most
 * `maxLines` lines (then one saying how many more), each cut to `maxLineChars`, and every line
 * escaped: nothing a server or a command printed can drive the terminal.
 */
export function previewResult(
  output: unknown,
  limits: { maxLines: number; maxLineChars: number } = RESULT_PREVIEW_LIMITS,
): string[] {
  const lines = textOf(output).replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  const shown = lines.slice(0, limits.maxLines).map((line) => cut(safeLine(line), limits.maxLineChars));
  const more = lines.length - shown.length;
  if (more > 0) shown.push(`… ${more} more line${more === 1 ? "" : "s"}`);
  return shown;
}

function textOf(output: unknown): string {
  if (typeof output === "string") return output;
  if (isCommandOutput(output)) {
    const parts = [output.stdout.replace(/\n+$/, "")];
    if (output.stderr !== "") parts.push(`stderr: ${output.stderr.replace(/\n+$/, "")}`);
    parts.push(describeCommandEnd(output) ?? "");
    return parts.filter((part) => part !== "").join("\n");
  }
  if (isMcpOutput(output)) {
    return output.content
      .map((block) =>
        isRecord(block) && block.type === "text" && typeof block.text === "string"
          ? block.text
          : `[${isRecord(block) ? describeBlock(block) : "content"}]`,
      )
      .join("\n");
  }
  return JSON.stringify(output, null, 2) ?? String(output);
}

function cut(line: string, maxChars: number): string {
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
