/**
 * Where Ctrl-C goes. By default it stops the whole command (see bin.ts); a command that runs turns
 * (`agent chat`) claims it while a turn runs, so the first Ctrl-C cancels that turn only. A claim
 * answers one interrupt: the next one, before the command claims again, stops the command as usual.
 */
export interface TurnInterrupts {
  /** Routes the next Ctrl-C to `cancel` until the returned function releases the claim. */
  claim(cancel: () => void): () => void;
  /**
   * Called by the process's SIGINT handler: hands the interrupt to the current claim (releasing it)
   * and returns true, or returns false when nothing claimed it (the command stops).
   */
  interrupt(): boolean;
}

/** A {@link TurnInterrupts} with nothing claimed. */
export function createTurnInterrupts(): TurnInterrupts {
  let current: (() => void) | undefined;
  return {
    claim(cancel) {
      current = cancel;
      return () => {
        if (current === cancel) current = undefined;
      };
    },
    interrupt() {
      const cancel = current;
      if (cancel === undefined) return false;
      current = undefined;
      cancel();
      return true;
    },
  };
}
