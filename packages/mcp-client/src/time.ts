/** Milliseconds since `started` (a `performance.now()` reading), to the microsecond. */
export function since(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
