// Everything the benchmark starts is registered here, so that a normal end, an error or Ctrl-C
// leaves no server process and no temp file behind.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Bounds one closer: a benchmark that hangs while cleaning up is worse than a SIGKILL.
const CLOSE_TIMEOUT_MS = 5000;

/** Tracks closers, server pids and temp folders, and releases them once, in reverse order. */
export function createCleanup() {
  const closers = new Set();
  const pids = new Set();
  const folders = new Set();
  let running;
  let interrupted = false;

  const killSurvivors = () => {
    for (const pid of pids) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // Already gone, or not a process group leader.
        }
      }
    }
    pids.clear();
  };

  const removeFolders = () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    folders.clear();
  };

  const cleanup = {
    /**
     * Registers `close` (async allowed) to run at cleanup, and the server process it should end, which
     * is killed if it survives the closer. Returns a function that closes it now.
     */
    add(close, pid) {
      if (typeof pid === "number" && pid > 0) pids.add(pid);
      const once = async () => {
        if (!closers.delete(once)) return;
        await withinTime(Promise.resolve().then(close), CLOSE_TIMEOUT_MS);
        // Forget an ended process at once: its pid may be reused by a stranger later.
        if (pid !== undefined && !isAlive(pid)) pids.delete(pid);
      };
      closers.add(once);
      return once;
    },

    /** Creates a temp folder that is removed at cleanup. */
    tempFolder(prefix) {
      const folder = mkdtempSync(join(tmpdir(), prefix));
      folders.add(folder);
      return folder;
    },

    /** Whether SIGINT/SIGTERM arrived: failures after it are consequences, not news. */
    get interrupted() {
      return interrupted;
    },

    /** Closes everything registered (newest first), then kills what is left and removes temp folders. */
    run() {
      running ??= (async () => {
        for (const close of [...closers].reverse()) await close().catch(() => {});
        killSurvivors();
        removeFolders();
      })();
      return running;
    },

    /** Cleans up on SIGINT/SIGTERM (then exits 130/143) and, synchronously, on any exit. */
    installHandlers() {
      for (const [signal, code] of [
        ["SIGINT", 130],
        ["SIGTERM", 143],
      ]) {
        process.once(signal, () => {
          interrupted = true;
          process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
          void cleanup.run().finally(() => process.exit(code));
        });
      }
      // Last resort for a crash: no awaiting is possible here, so kill and delete synchronously.
      process.once("exit", () => {
        killSurvivors();
        removeFolders();
      });
    },
  };
  return cleanup;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function withinTime(work, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work.catch(() => {}), timeout]).finally(() => clearTimeout(timer));
}
