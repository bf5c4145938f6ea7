/** Milliseconds since `started` (a `performance.now()` reading), to the microsecond. */
export function since(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** The message of an error, or the string form of anything else thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
