import { type EventSink, emitEvent } from "@agent/tools";
import { retryWithBackoff } from "./backoff.js";
import type { ReconnectPolicy } from "./connection-options.js";

/** What a {@link Reconnector} does to its connection. */
export interface ReconnectTarget {
  server: string;
  events: EventSink;
  /** The connection's lifetime: aborted by close(), which ends the attempts. */
  signal: AbortSignal;
  /** One attempt: a new transport, handshake and discovery. */
  establish(): Promise<void>;
  /** An attempt failed: record why and let go of its transport before the next one. */
  attemptFailed(error: unknown): Promise<void>;
  /** Every attempt failed (and the connection was not closed meanwhile). */
  gaveUp(message: string): Promise<void>;
}

/**
 * Brings a connection whose server went away back, with a capped, doubling delay before each attempt
 * (`mcp_reconnecting` says which and how long), one run at a time however often the server drops.
 */
export class Reconnector {
  readonly #policy: ReconnectPolicy;
  readonly #target: ReconnectTarget;
  #running: Promise<void> | undefined;
  /** Stops the run under way (see {@link stop}); each run has its own. */
  #stopRun: AbortController | undefined;
  /** A drop heard while a run was ending (after its last attempt succeeded): one more run follows. */
  #again = false;

  constructor(policy: ReconnectPolicy, target: ReconnectTarget) {
    this.#policy = policy;
    this.#target = target;
  }

  /** The run under way, if any. */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Starts a run, or, when one is under way, another once it ends (the drop may have come after its success). */
  start(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#again = false;
    const stopRun = new AbortController();
    this.#stopRun = stopRun;
    this.#running = this.#run(AbortSignal.any([this.#target.signal, stopRun.signal])).finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#target.signal.aborted) this.start();
    });
  }

  /**
   * Someone else takes over (an explicit reconnect): the run under way makes no further attempt,
   * and neither its attempt still pending nor its end is reported, so a failure is reported once,
   * by whoever took over. A later {@link start} starts a new run.
   */
  stop(): void {
    this.#again = false;
    this.#stopRun?.abort();
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { server, events } = this.#target;
    const back = await retryWithBackoff(this.#policy, () => this.#target.establish(), {
      signal,
      beforeAttempt: (attempt, delayMs) =>
        emitEvent(events, { type: "mcp_reconnecting", server, attempt, delayMs }),
      onFailure: (error) => this.#target.attemptFailed(error),
    });
    if (!back && !signal.aborted) {
      await this.#target.gaveUp(
        `Server "${server}" did not come back after ${this.#policy.maxAttempts} attempts.`,
      );
    }
  }
}
