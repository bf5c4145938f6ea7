import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** A Node child process a test talks to in lines: it writes a line when it is ready, or done. */
export interface LineChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** The next line it writes to stdout, without the newline; rejects, with its stderr, if it exits first. */
  nextLine(): Promise<string>;
  /** Writes `line` and a newline to its stdin. */
  send(line: string): void;
}

/** The child processes of one test file: started by `start`, and killed by `killAll` if still running. */
export interface LineChildren {
  /** Runs `node script ...args`, its three streams piped. */
  start(script: string, args: readonly string[]): LineChild;
  /** Kills (SIGKILL) every child started since the last call that has not exited; call it in `afterEach`. */
  killAll(): void;
}

/**
 * Starts Node child processes for tests that race processes against each other (two writers, eight
 * consumers) and talk to each in lines, and makes sure none outlives its test.
 */
export function createLineChildren(): LineChildren {
  let started: ChildProcessWithoutNullStreams[] = [];
  return {
    start(script, args) {
      const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
      started.push(child);
      return readLines(child);
    },
    killAll() {
      for (const child of started)
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      started = [];
    },
  };
}

function readLines(child: ChildProcessWithoutNullStreams): LineChild {
  const lines: string[] = [];
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  let pending = "";
  let errors = "";
  let exit: Error | undefined;
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line);
      else lines.push(line);
    }
  });
  child.stderr.on("data", (chunk: string) => {
    errors += chunk;
  });
  child.once("close", (code, signal) => {
    exit = new Error(`child exited (${code ?? signal}) before answering: ${errors}`);
    for (const waiter of waiting.splice(0)) waiter.reject(exit);
  });
  return {
    process: child,
    nextLine() {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (exit) return Promise.reject(exit);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    send(line) {
      child.stdin.write(`${line}\n`);
    },
  };
}
