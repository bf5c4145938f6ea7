/** The CLI's exit codes: a stable contract scripts rely on. */
export const EXIT_CODES = {
  ok: 0,
  /** The call ran (or was refused) and its observation is a failure. */
  failed: 1,
  /** Bad usage, bad configuration, unusable state, or a run that cannot be resumed (completed, running elsewhere). */
  usage: 2,
  /** The call is held until someone approves it. */
  waiting: 3,
  /** Interrupted by Ctrl-C (SIGINT): 128 + 2, as a shell reports a program the signal killed. */
  interrupted: 130,
  /** Stopped by SIGTERM (a service manager, `kill`, a CI timeout): 128 + 15. */
  terminated: 143,
  /** The reader of stdout went away (EPIPE), as a program killed by SIGPIPE reports. */
  pipeClosed: 141,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/**
 * The abort reason of a command stopped by a signal. Like the default reason of `abort()`, it is an
 * Error named `AbortError`, so code that inspects the reason treats it as any abort.
 */
export class Interrupted extends Error {
  override readonly name = "AbortError";
  /** The signal that stopped the command. */
  readonly signal: NodeJS.Signals;

  constructor(signal: NodeJS.Signals) {
    super(`Interrupted by ${signal}.`);
    this.signal = signal;
  }
}

/**
 * The exit code of a command whose abort signal fired, from the signal's reason: 143 for an
 * {@link Interrupted} by SIGTERM, else 130 (Ctrl-C, and any other interruption).
 */
export function interruptionExitCode(reason: unknown): ExitCode {
  return reason instanceof Interrupted && reason.signal === "SIGTERM"
    ? EXIT_CODES.terminated
    : EXIT_CODES.interrupted;
}

/** An error that ends the command with a given exit code and a message for stderr. */
export class CliExit extends Error {
  override readonly name = "CliExit";
  readonly exitCode: ExitCode;
  /** Whether the message ends with where usage is (`Run "agent --help" for usage.`): see {@link usageError}. */
  readonly pointsToHelp: boolean;

  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown; pointsToHelp?: boolean }) {
    super(message, options);
    this.exitCode = exitCode;
    this.pointsToHelp = options?.pointsToHelp ?? false;
  }

  /** The message with the usage hint naming the command as the user launched it. */
  messageFor(agent: string): string {
    return this.pointsToHelp ? `${this.message} Run "${agent} --help" for usage.` : this.message;
  }
}

/** A usage error: exit code 2 with a hint, on one line. */
export function usageError(message: string): CliExit {
  return new CliExit(EXIT_CODES.usage, message, { pointsToHelp: true });
}
