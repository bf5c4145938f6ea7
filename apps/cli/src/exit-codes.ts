/** The CLI's exit codes: a stable contract scripts rely on. */
export const EXIT_CODES = {
  ok: 0,
  /** The call ran (or was refused) and its observation is a failure. */
  failed: 1,
  /** Bad usage, bad configuration or unusable state. */
  usage: 2,
  /** The call is held until someone approves it. */
  waiting: 3,
  /** Interrupted by Ctrl-C (SIGINT). */
  interrupted: 130,
  /** The reader of stdout went away (EPIPE), as a program killed by SIGPIPE reports. */
  pipeClosed: 141,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** An error that ends the command with a given exit code and a message for stderr. */
export class CliExit extends Error {
  override readonly name = "CliExit";
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.exitCode = exitCode;
  }
}

/** A usage error: exit code 2 with a hint. */
export function usageError(message: string): CliExit {
  return new CliExit(EXIT_CODES.usage, `${message}\nRun "agent --help" for usage.`);
}
