import type { ToolProgress } from "@agent/tools";
import { safeLine } from "./io.js";

const BAR_CELLS = 20;
const MESSAGE_CHARS = 60;

/**
 * One line for a tool's progress: `name [██████░░░░] 60% message` when the server gave a total,
 * else `name 37 message` (a count that goes up) after `spinner`. Every server string escaped.
 */
export function progressLine(toolName: string, progress: ToolProgress, spinner: string): string {
  const message = progress.message === undefined ? "" : ` ${cutMessage(safeLine(progress.message))}`;
  const name = safeLine(toolName);
  const { total } = progress;
  if (total === undefined || !(total > 0) || !Number.isFinite(progress.progress)) {
    return `${spinner} ${name} ${formatCount(progress.progress)}${message}`;
  }
  const fraction = Math.min(1, Math.max(0, progress.progress / total));
  const filled = Math.round(fraction * BAR_CELLS);
  const bar = `${"█".repeat(filled)}${"░".repeat(BAR_CELLS - filled)}`;
  return `${name} [${bar}] ${String(Math.floor(fraction * 100)).padStart(3)}%${message}`;
}

function formatCount(value: number): string {
  return Number.isFinite(value) ? String(value) : "?";
}

function cutMessage(message: string): string {
  return message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS - 1)}…` : message;
}
