import { createInterface } from "node:readline/promises";
import { serverOfToolName } from "@agent/mcp-client";
import type { ApprovalRecord } from "@agent/policy";
import { type CliIo, safeLine, safeText, styleFor, writeLine } from "./io.js";

/**
 * Shows a held call in full and asks the person at the terminal to approve it once or deny it;
 * `interrupted` when Ctrl-C ends the prompt.
 */
export async function promptForApproval(
  io: CliIo,
  request: ApprovalRecord,
  input: unknown,
  signal: AbortSignal,
): Promise<"approve" | "deny" | "interrupted"> {
  const style = styleFor(io.stderr, io.env);
  const server = serverOfToolName(request.toolName);
  writeLine(io.stderr);
  writeLine(io.stderr, style.bold("This call needs your approval."));
  writeLine(io.stderr, `  tool       ${safeLine(`${request.toolName} (${request.effect})`)}`);
  writeLine(io.stderr, `  server     ${server ? safeLine(server) : "local tool"}`);
  writeLine(io.stderr, `  summary    ${safeLine(request.summary)}`);
  writeLine(io.stderr, "  arguments");
  for (const line of JSON.stringify(input, null, 2).split("\n"))
    writeLine(io.stderr, `    ${safeText(line)}`);
  const hints = Object.entries(request.unverifiedHints ?? {});
  if (hints.length > 0) {
    writeLine(io.stderr, style.yellow("  annotations declared by the server (unverified, not trusted):"));
    for (const [key, value] of hints)
      writeLine(io.stderr, `    ${safeLine(key)}: ${safeLine(JSON.stringify(value))}`);
  }
  const prompt = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const answer = await prompt.question(`Approve this exact call once? [y/N] `, { signal });
    return /^\s*y(es)?\s*$/i.test(answer) ? "approve" : "deny";
  } catch (error) {
    if (signal.aborted) return "interrupted";
    throw error;
  } finally {
    prompt.close();
  }
}
