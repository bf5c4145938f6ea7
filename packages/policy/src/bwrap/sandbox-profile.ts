import type { NetworkPolicy } from "../policy.js";

/** Bounds on what one sandboxed process tree may use, so it cannot exhaust the host. */
export interface ResourceLimits {
  /** Size of each writable tmpfs (the private `/tmp`, `/dev/shm`, `/run`, the empty home that hides the real one), in bytes. */
  tmpBytes: number;
  /** RLIMIT_FSIZE: the largest file the sandbox may write, in bytes. */
  fileBytes: number;
  /** RLIMIT_NPROC: processes of the sandbox's user (not enforced by Linux for root of the host). */
  processes: number;
  /** RLIMIT_AS per process, in bytes; unset by default (V8 and WebAssembly reserve far more than they use). */
  addressSpaceBytes?: number;
}

/** The defaults of {@link ResourceLimits}: 256 MiB of `/tmp`, 1 GiB files, 512 processes. */
export const DEFAULT_RESOURCE_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  tmpBytes: 256 * 1024 * 1024,
  fileBytes: 1024 * 1024 * 1024,
  processes: 512,
});

/** What one sandboxed process may see and do, beyond the read-only system. */
export interface SandboxProfile {
  /** Absolute paths readable (read-only) even where they lie under the hidden home or `/tmp`. */
  read: readonly string[];
  /** Absolute paths writable; everything else is read-only or hidden. */
  write: readonly string[];
  /**
   * Absolute paths that stay read-only inside a `write` grant (the files a configured server runs
   * from, the files the host runs later): a process may neither change, replace nor rename them,
   * nor the directories above them. One that does not exist yet is reserved (an empty read-only
   * directory mounted at its topmost missing component), so it cannot be created either.
   */
  keepReadOnly?: readonly string[];
  /** Absolute paths never visible, whatever `read` and `write` say (the harness's own config and state). */
  hide: readonly string[];
  /** The home directory hidden behind an empty, size-limited tmpfs. */
  home: string;
  network: NetworkPolicy;
  limits: ResourceLimits;
}
