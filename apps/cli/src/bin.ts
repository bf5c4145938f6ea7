#!/usr/bin/env node
import { runCli } from "./cli.js";
import { EXIT_CODES, Interrupted, interruptionExitCode } from "./exit-codes.js";
import { createServerProcesses } from "./runtime/server-connections.js";
import { processIo } from "./terminal/io.js";
import { createTurnInterrupts } from "./terminal/turn-interrupts.js";

await main();

/** The `agent` process: its signal handlers and stream errors, one command line, the exit code. */
async function main(): Promise<void> {
  // The stdio servers this process starts: the second signal below kills what is left of them.
  const serverProcesses = createServerProcesses();
  const interrupt = new AbortController();
  const turnInterrupts = createTurnInterrupts();
  let interrupts = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      // A turn of `agent chat` that claimed Ctrl-C is cancelled; the chat goes on.
      if (signal === "SIGINT" && turnInterrupts.interrupt()) return;
      interrupts += 1;
      // A second signal means "now": the first one is still cancelling and closing servers, so
      // kill their process groups outright rather than leave them behind. The exit code is the first
      // signal's (130 for SIGINT, 143 for SIGTERM): that is what stopped the command.
      if (interrupts > 1) {
        serverProcesses.killAll();
        process.exit(interruptionExitCode(interrupt.signal.reason));
      }
      interrupt.abort(new Interrupted(signal));
    });
  }

  // A reader that went away (`agent audit --json | head`) is not a crash: stop the work and close
  // servers as for Ctrl-C, and exit as a program killed by SIGPIPE would (141).
  let pipeClosed = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      pipeClosed = true;
      interrupt.abort();
    });
  }

  const result = await runCli(
    process.argv.slice(2),
    processIo(),
    interrupt.signal,
    serverProcesses,
    turnInterrupts,
  );
  const code = pipeClosed ? EXIT_CODES.pipeClosed : result;
  process.exitCode = code;
  // Everything was closed; if a stray handle still keeps the loop alive, do not hang the shell.
  setTimeout(() => process.exit(code), 2_000).unref();
}
