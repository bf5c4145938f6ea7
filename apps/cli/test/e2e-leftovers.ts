// What an end-to-end test may leave behind: nothing. Servers record their pid when they start, but a
// pid recorded inside a sandbox's own pid namespace names some other process on the host, so those
// are told apart by the namespace each record carries; a sandbox itself is found by its command line
// (bwrap's arguments name the test's directory, which every run's paths lie in).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { assertNoProcessesAlive, isProcessAlive, readRecordFile } from "@agent/mcp-testing/servers";

/** Host pids the servers of `recordsDirectory` recorded (`started`, `grandchild`) in this process's pid namespace. */
export function recordedHostPids(recordsDirectory: string): number[] {
  const own = pidNamespace();
  return readdirSync(recordsDirectory).flatMap((file) =>
    readRecordFile(join(recordsDirectory, file))
      .filter(
        (record) =>
          ["started", "grandchild"].includes(record.event) &&
          typeof record.pid === "number" &&
          (record.pidNamespace === undefined || record.pidNamespace === own),
      )
      .map((record) => record.pid as number),
  );
}

/** Live host processes (other than this one) whose command line mentions `text`. */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text) && isProcessAlive(Number(entry))) {
        found.push(Number(entry));
      }
    } catch {
      // Gone while looking.
    }
  }
  return found;
}

/**
 * Rejects, naming them, unless every recorded server pid and every process mentioning `root` is gone
 * within `timeoutMs`; kills the survivors first, so one failure does not leak into the next test.
 */
export async function assertNothingLeftBehind(
  root: string,
  recordsDirectory: string,
  timeoutMs: number,
): Promise<void> {
  const pids = [...new Set([...recordedHostPids(recordsDirectory), ...processesMentioning(root)])];
  try {
    await assertNoProcessesAlive(pids, timeoutMs);
    const late = processesMentioning(root);
    if (late.length > 0) await assertNoProcessesAlive(late, timeoutMs);
  } catch (error) {
    for (const pid of [...pids, ...processesMentioning(root)].filter(isProcessAlive)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    throw error;
  }
}

function pidNamespace(): string | undefined {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}
