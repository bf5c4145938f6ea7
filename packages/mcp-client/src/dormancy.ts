import { holdsProcess } from "@agent/base";
import type { McpAbortSignal } from "@agent/mcp-transport";

/**
 * The idle close of a connection: after `idleMs` with no request in flight it puts the connection to
 * sleep (`sleep`), and the next use wakes it (`reopen`: a new handshake and discovery), once for
 * every caller waiting. The clock starts when the last request in flight ends, so a long call never
 * counts as idle, and its timer never keeps a process alive.
 */
export class Dormancy {
  readonly #idleMs: number;
  readonly #sleep: () => void;
  readonly #reopen: () => Promise<boolean>;
  #inFlight = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waking: Promise<boolean> | undefined;

  /**
   * `reopen` connects again; when it throws, `reopenFailed` records why (the connection fails) and
   * every call in flight learns that the server is not back.
   */
  constructor(
    idleMs: number,
    hooks: {
      sleep: () => void;
      reopen: () => Promise<void>;
      reopenFailed: (error: unknown) => Promise<void>;
    },
  ) {
    this.#idleMs = idleMs;
    this.#sleep = hooks.sleep;
    this.#reopen = () =>
      hooks.reopen().then(
        () => true,
        async (error: unknown) => {
          await hooks.reopenFailed(error);
          return false;
        },
      );
  }

  /** Whether a wake-up is under way. */
  get waking(): boolean {
    return this.#waking !== undefined;
  }

  /** A request starts: the connection is in use until the matching {@link end}. */
  begin(): void {
    this.#inFlight += 1;
    this.#clear();
  }

  /** A request ended; when none is left, the idle clock starts again. */
  end(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (this.#inFlight === 0) this.restart();
  }

  /** Starts the idle clock from now (the connection just became ready), unless a request is in flight. */
  restart(): void {
    this.#clear();
    if (this.#inFlight > 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#inFlight === 0) this.#sleep();
    }, this.#idleMs);
    // An idle clock never holds a process open.
    holdsProcess(this.#timer, false);
  }

  /** Stops the clock (the connection closed or failed). */
  stop(): void {
    this.#clear();
  }

  /** Reopens the connection (once for all callers); false when that failed, or when `signal` aborted first. */
  wake(signal: McpAbortSignal): Promise<boolean> {
    this.#waking ??= this.#reopen().finally(() => {
      this.#waking = undefined;
    });
    const waking = this.#waking;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = () => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
      void waking.then((woke) => {
        signal.removeEventListener("abort", onAbort);
        resolve(woke);
      });
    });
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
