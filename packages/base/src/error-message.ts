/** The message of an error, or the string form of anything else thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
