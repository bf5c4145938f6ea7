/** How a bounded wait ended. */
export type WithinTimeOutcome = { kind: "done" } | { kind: "timeout" } | { kind: "error"; error: unknown };

/** Waits for `work` at most `ms` milliseconds; never rejects. */
export async function withinTime(work: Promise<unknown>, ms: number): Promise<WithinTimeOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<WithinTimeOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), ms);
  });
  try {
    return await Promise.race([
      work.then(
        (): WithinTimeOutcome => ({ kind: "done" }),
        (error: unknown): WithinTimeOutcome => ({ kind: "error", error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
