import { type ExitCode, interruptionExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, writeLine } from "../terminal/io.js";
import { plural } from "../terminal/table.js";

/**
 * For a command that connects servers to list them: when Ctrl-C (or SIGTERM) came while they
 * connected, closes them all and says so in one stderr line (`interrupted: closed 3 servers`)
 * instead of listing each as failed with "request cancelled"; resolves to the exit code (130 or
 * 143) then, to `undefined` when the listing should go on.
 */
export async function endIfInterrupted(
  runtime: Pick<Runtime, "closeServers">,
  io: CliIo,
  signal: AbortSignal,
): Promise<ExitCode | undefined> {
  if (!signal.aborted) return undefined;
  const closed = await runtime.closeServers();
  writeLine(io.stderr, `interrupted: closed ${plural(closed, "server")}`);
  return interruptionExitCode(signal.reason);
}
