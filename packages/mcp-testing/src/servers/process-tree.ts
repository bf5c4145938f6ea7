import { readdirSync, readFileSync } from "node:fs";

interface ProcessStat {
  pid: number;
  command: string;
  state: string;
  ppid: number;
  pgrp: number;
}

/** Whether a process exists and is not a zombie (some containers never reap orphaned zombies). */
export function isProcessAlive(pid: number): boolean {
  const stat = readStat(pid);
  if (stat) return stat.state !== "Z" && stat.state !== "X";
  if (hasProc()) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The live process `pid` and all its live descendants (Linux `/proc`; elsewhere just `pid`). Take it while the tree is intact. */
export function processTreeOf(pid: number): number[] {
  const stats = listProcesses();
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    if (isProcessAlive(current)) tree.push(current);
    for (const stat of stats) if (stat.ppid === current && !tree.includes(stat.pid)) queue.push(stat.pid);
  }
  return tree;
}

/** The live members of process group `pgid`, including orphans whose parent is gone (Linux `/proc`). */
export function processGroupMembers(pgid: number): number[] {
  return listProcesses()
    .filter((stat) => stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X")
    .map((stat) => stat.pid);
}

/** Waits until none of `pids` is alive; resolves with the ones still alive after `timeoutMs`. */
export async function waitForProcessesGone(pids: readonly number[], timeoutMs = 2000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isProcessAlive);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Rejects, naming the survivors, unless every one of `pids` is gone within `timeoutMs` (a SIGKILL takes a moment). */
export async function assertNoProcessesAlive(pids: readonly number[], timeoutMs = 2000): Promise<void> {
  const alive = await waitForProcessesGone(pids, timeoutMs);
  if (alive.length > 0) {
    const names = alive.map((pid) => `${pid} (${readStat(pid)?.command ?? "?"})`).join(", ");
    throw new Error(
      `Processes still alive after ${timeoutMs} ms: ${names}. Kill them and fix the close path.`,
    );
  }
}

function hasProc(): boolean {
  try {
    readdirSync("/proc/self");
    return true;
  } catch {
    return false;
  }
}

function listProcesses(): ProcessStat[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    const stat = readStat(Number(entry));
    return stat ? [stat] : [];
  });
}

function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  const [state, ppid, pgrp] = text.slice(close + 2).split(" ");
  return {
    pid,
    command: text.slice(open + 1, close),
    state: state ?? "?",
    ppid: Number(ppid),
    pgrp: Number(pgrp),
  };
}
