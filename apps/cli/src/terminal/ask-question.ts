import { createInterface } from "node:readline/promises";
import type { CliIo } from "./io.js";

/**
 * Asks one question on stderr and reads one line of the answer from stdin. Rejects (as readline
 * does) when `signal` aborts; nothing of stdin is read past the answer's line.
 */
export async function askQuestion(io: CliIo, question: string, signal: AbortSignal): Promise<string> {
  const prompt = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    return await prompt.question(question, { signal });
  } finally {
    prompt.close();
  }
}
