/** The shape of what `run_command` returns (see local-tools/run-command-tool.ts), as display code reads it. */
export interface CommandOutputShape {
  exitCode: number | null;
  signal?: string | null;
  timedOut?: boolean;
  stdout: string;
  stderr: string;
}

/** Whether a tool's output is a command's (stdout, stderr and exit code): shown as text, not JSON. */
export function isCommandOutput(value: unknown): value is CommandOutputShape {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.stdout === "string" && typeof record.stderr === "string" && "exitCode" in record;
}

/** How a command ended, when not with exit code 0: `(exit code 2)`, `(stopped at its timeout)`. */
export function describeCommandEnd(output: CommandOutputShape): string | undefined {
  if (output.exitCode === 0) return undefined;
  if (output.timedOut) return "(stopped at its timeout)";
  return output.exitCode === null
    ? `(killed by ${String(output.signal ?? "a signal")})`
    : `(exit code ${output.exitCode})`;
}
