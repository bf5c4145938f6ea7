/** A timer handle that can stop keeping the process alive: Node's can, a browser's number cannot. */
interface ReleasableTimer {
  ref?(): unknown;
  unref?(): unknown;
}

/**
 * Lets a timer keep the process alive (`hold`) or not, where the runtime's timers can (Node's
 * `ref`/`unref`); elsewhere a timer is a number and nothing happens, so a portable root may call it.
 */
export function holdsProcess(timer: ReturnType<typeof setTimeout>, hold: boolean): void {
  const handle = timer as unknown as ReleasableTimer;
  if (hold) handle.ref?.();
  else handle.unref?.();
}
