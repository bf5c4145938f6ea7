// A process-count bound that holds for root too: a pids cgroup (RLIMIT_NPROC does not apply to the
// host's root). Used where this process may create a child cgroup with a pids controller (root with
// cgroup v1, or a delegated cgroup v2 subtree); elsewhere there is none, and the README says so.
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/** A cgroup that caps how many processes a sandbox may hold at once. */
export interface PidsCgroup {
  /** Writing a pid here moves that process (and its future children) into the cgroup. */
  readonly procsFile: string;
  /** Removes the cgroup once it is empty; retried briefly while its last processes are reaped. */
  remove(): Promise<void>;
}

/** The directory under which pids cgroups can be created, or `undefined` where this process may not. */
export function findPidsCgroupParent(): string | undefined {
  let mounts: string;
  let own: string;
  try {
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
    own = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return undefined;
  }
  for (const line of own.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers === undefined || path === undefined) continue;
    const v2 = controllers === "";
    if (!v2 && !controllers.split(",").includes("pids")) continue;
    const mount = mountPointOf(mounts, v2);
    if (mount === undefined) continue;
    const parent = join(mount, path);
    if (probe(parent)) return parent;
  }
  return undefined;
}

// The names this module gives its cgroups (a sandbox's, a probe's).
const OWN_CGROUP_NAME = /^agent-sandbox-(probe-)?[0-9a-f]{12}$/;
// A cgroup of ours this old and empty is abandoned: a launch's shell enters its new cgroup within
// milliseconds of its creation, so none is about to, and one that holds a process refuses rmdir.
const ABANDONED_AFTER_MS = 60_000;

/**
 * Removes the cgroups of sandboxes whose owner never did: a process killed while its sandboxes ran
 * (a second Ctrl-C exits at once, SIGKILL gives no chance) leaves their cgroups empty behind it.
 * Whatever cannot be removed (in use, or removed meanwhile) stays; this never throws.
 */
export function removeAbandonedCgroups(parent: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!OWN_CGROUP_NAME.test(name)) continue;
    const directory = join(parent, name);
    try {
      if (now - statSync(directory).mtimeMs < ABANDONED_AFTER_MS) continue;
      rmdirSync(directory);
    } catch {
      // EBUSY: a process is in it; ENOENT: its owner or another sweep removed it first.
    }
  }
}

/**
 * Creates a pids cgroup below `parent` allowing at most `max` processes, after removing the
 * abandoned ones ({@link removeAbandonedCgroups}).
 */
export function createPidsCgroup(parent: string, max: number): PidsCgroup {
  removeAbandonedCgroups(parent);
  const directory = join(parent, `agent-sandbox-${randomBytes(6).toString("hex")}`);
  mkdirSync(directory);
  try {
    writeFileSync(join(directory, "pids.max"), String(max));
  } catch (error) {
    rmdirSync(directory);
    throw error;
  }
  return {
    procsFile: join(directory, "cgroup.procs"),
    async remove() {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          rmdirSync(directory);
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") return;
          if (code !== "EBUSY") throw error;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}

function mountPointOf(mountinfo: string, v2: boolean): string | undefined {
  for (const line of mountinfo.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const [fstype, , superOptions = ""] = after.split(" ");
    const mountPoint = before.split(" ")[4];
    if (mountPoint === undefined) continue;
    if (v2 && fstype === "cgroup2") return mountPoint;
    if (!v2 && fstype === "cgroup" && superOptions.split(",").includes("pids")) return mountPoint;
  }
  return undefined;
}

// Whether a child cgroup with a pids controller can be made here: tried, then removed.
function probe(parent: string): boolean {
  const directory = join(parent, `agent-sandbox-probe-${randomBytes(6).toString("hex")}`);
  try {
    mkdirSync(directory);
  } catch {
    return false;
  }
  try {
    return existsSync(join(directory, "pids.max"));
  } finally {
    try {
      rmdirSync(directory);
    } catch {
      // Left empty; nothing runs in it.
    }
  }
}
