/** Runs a task on request, never twice at once: requests made while it runs trigger one more run. */
export interface CoalescingRunner {
  /** Starts the task, or queues one more run if it is running. */
  request(): void;
  /** Resolves once the task is neither running nor queued. */
  settled(): Promise<void>;
}

/** Creates a {@link CoalescingRunner} around `task` (which must not throw). */
export function createCoalescingRunner(task: () => Promise<void>): CoalescingRunner {
  let running: Promise<void> | undefined;
  let again = false;
  const loop = async () => {
    do {
      again = false;
      await task();
    } while (again);
  };
  return {
    request() {
      if (running) {
        again = true;
        return;
      }
      running = loop().finally(() => {
        running = undefined;
      });
    },
    async settled() {
      while (running) await running;
    },
  };
}
