import { holdsProcess } from "@agent/base";

/**
 * One timer for the time limits of many calls: entries in deadline order, one Node timer armed for
 * the earliest. A call's own `setTimeout` + `clearTimeout` cost ~0.3-0.5 µs and a timer object
 * (~0.3 KiB) a call; adding and removing an entry here costs a clock read and a few links.
 */

/** The longest delay setTimeout honours: it fires at once for longer ones. */
export const MAX_TIMER_MS = 2_147_483_647;

/** What a {@link DeadlineQueue} holds: told once when its deadline passes, unless removed before. */
export interface DeadlineEntry {
  /** Called once, when the entry's deadline has passed; it is out of the queue by then. */
  expire(): void;
}

/** An entry's place in its queue, which {@link DeadlineQueue.remove} takes. */
export interface DeadlineHandle {
  readonly entry: DeadlineEntry;
  readonly deadline: number;
}

interface Link extends DeadlineHandle {
  queued: boolean;
  earlier: Link | undefined;
  later: Link | undefined;
}

/**
 * Deadlines of entries, kept by an owner that lives across them (a `ToolRegistry` for the calls made
 * against it). Its timer keeps the process alive only while an entry waits, as each call's own timer
 * would: with the queue empty it stays armed but unreferenced, so most entries arm nothing at all.
 */
export class DeadlineQueue {
  // Earliest first. Entries of one time limit are added in deadline order, so an add is at the end.
  #first: Link | undefined;
  #last: Link | undefined;
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Number.POSITIVE_INFINITY;
  readonly #fire = (): void => this.#expireDue();

  /**
   * Calls `entry.expire()` once `timeoutMs` have passed, unless its handle is removed first. A limit
   * that is not a positive number expires at once (as setTimeout's would), one past what a timer can
   * hold (2^31-1 ms) waits that long.
   */
  add(entry: DeadlineEntry, timeoutMs: number): DeadlineHandle {
    const deadline = performance.now() + (timeoutMs > 0 ? Math.min(timeoutMs, MAX_TIMER_MS) : 0);
    const link: Link = { entry, deadline, queued: true, earlier: undefined, later: undefined };
    this.#size += 1;
    let earlier = this.#last;
    while (earlier !== undefined && earlier.deadline > link.deadline) earlier = earlier.earlier;
    link.earlier = earlier;
    link.later = earlier === undefined ? this.#first : earlier.later;
    if (link.later) link.later.earlier = link;
    else this.#last = link;
    if (earlier) earlier.later = link;
    else this.#first = link;
    if (this.#timer === undefined || deadline < this.#armedFor) this.#arm(deadline);
    else holdsProcess(this.#timer, true);
    return link;
  }

  /** Takes an entry out of the queue: it will not expire. Nothing happens for one no longer in it. */
  remove(handle: DeadlineHandle): void {
    const link = handle as Link;
    if (!link.queued) return;
    this.#unlink(link);
    // Left armed (re-arming per call is what this saves), but no longer keeping the process alive.
    if (this.#first === undefined && this.#timer !== undefined) holdsProcess(this.#timer, false);
  }

  /** How many entries wait. */
  get size(): number {
    return this.#size;
  }

  #unlink(link: Link): void {
    link.queued = false;
    this.#size -= 1;
    if (link.earlier) link.earlier.later = link.later;
    else this.#first = link.later;
    if (link.later) link.later.earlier = link.earlier;
    else this.#last = link.earlier;
    // A link out of the queue holds no other: a kept handle must not keep a chain of old calls alive.
    link.earlier = undefined;
    link.later = undefined;
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // A timer may fire a little before a deadline read from performance.now(): then it is re-armed.
    const delay = Math.min(Math.max(Math.ceil(deadline - performance.now()), 1), MAX_TIMER_MS);
    this.#timer = setTimeout(this.#fire, delay);
    this.#armedFor = deadline;
  }

  #expireDue(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    try {
      for (let first = this.#first; first !== undefined && first.deadline <= now; first = this.#first) {
        this.#unlink(first);
        first.entry.expire();
      }
    } finally {
      // Armed for the earliest that waits, even when an expire() threw, or added an entry (which
      // armed the timer for its own, later, deadline).
      const first = this.#first;
      if (first !== undefined && (this.#timer === undefined || first.deadline < this.#armedFor)) {
        this.#arm(first.deadline);
      }
    }
  }
}
