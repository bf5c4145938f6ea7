import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createPidsCgroup, findPidsCgroupParent, removeAbandonedCgroups } from "../src/bwrap/pids-cgroup.js";

const ABANDONED_AGE_MS = 5 * 60_000;

/** A cgroup named `prefix` and a random suffix, last changed `ageMs` ago; removed after the test if still there. */
function cgroupDirectory(parent: string, ageMs: number, prefix = "agent-sandbox-"): string {
  const directory = join(parent, `${prefix}${randomBytes(6).toString("hex")}`);
  mkdirSync(directory);
  onTestFinished(() => {
    if (existsSync(directory)) rmdirSync(directory);
  });
  const when = new Date(Date.now() - ageMs);
  utimesSync(directory, when, when);
  return directory;
}

/** A process sleeping inside `directory`'s cgroup; killed (and waited for) after the test. */
async function processIn(directory: string): Promise<void> {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  onTestFinished(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  await new Promise((resolve) => child.once("spawn", resolve));
  writeFileSync(join(directory, "cgroup.procs"), String(child.pid));
}

describe("pids cgroups: what a killed owner left behind", () => {
  it("removes its empty cgroups once they are old, and keeps one in use or just made", async (context) => {
    const parent = findPidsCgroupParent();
    if (parent === undefined) {
      context.skip("no pids cgroup can be created here");
      return;
    }
    const abandoned = cgroupDirectory(parent, ABANDONED_AGE_MS);
    const abandonedProbe = cgroupDirectory(parent, ABANDONED_AGE_MS, "agent-sandbox-probe-");
    const justMade = cgroupDirectory(parent, 0);
    const inUse = cgroupDirectory(parent, ABANDONED_AGE_MS);
    await processIn(inUse);
    const notOurs = cgroupDirectory(parent, ABANDONED_AGE_MS, "other-");

    const created = createPidsCgroup(parent, 8);
    onTestFinished(() => created.remove());

    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(abandonedProbe)).toBe(false);
    expect(existsSync(justMade)).toBe(true);
    expect(existsSync(inUse)).toBe(true);
    expect(existsSync(notOurs)).toBe(true);
    expect(existsSync(created.procsFile)).toBe(true);
  });

  it("never throws: a parent it cannot read is left alone", () => {
    expect(() => removeAbandonedCgroups("/nonexistent-cgroup-parent")).not.toThrow();
  });
});
