import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLineChildren } from "@agent/base/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";

const children = createLineChildren();
const scripts = mkdtempSync(join(tmpdir(), "line-children-"));
afterEach(() => children.killAll());
afterAll(() => rmSync(scripts, { recursive: true, force: true }));

function script(name: string, source: string): string {
  const file = join(scripts, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

describe("createLineChildren", () => {
  it("hands out each line a child writes, two in one chunk included, and sends it lines", async () => {
    const echo = script(
      "echo",
      `process.stdout.write("ready\\nsteady\\n");
       process.stdin.setEncoding("utf8");
       process.stdin.once("data", (line) => { process.stdout.write("got " + line); process.stdin.destroy(); });`,
    );
    const child = children.start(echo, []);
    expect(await child.nextLine()).toBe("ready");
    expect(await child.nextLine()).toBe("steady");
    child.send("go");
    expect(await child.nextLine()).toBe("got go");
  });

  it("passes the arguments, and rejects a line asked of a child that exited, with what it wrote to stderr", async () => {
    const failing = script("failing", 'console.error("broken: " + process.argv[2]); process.exit(3);');
    const child = children.start(failing, ["on purpose"]);
    await expect(child.nextLine()).rejects.toThrow("child exited (3) before answering: broken: on purpose");
    await expect(child.nextLine()).rejects.toThrow("broken: on purpose");
  });

  it("kills every child still running, and leaves the ones that exited alone", async () => {
    const sleeper = script("sleeper", 'process.stdout.write("ready\\n"); setInterval(() => {}, 1000);');
    const quick = script("quick", 'process.stdout.write("bye\\n");');
    const running = children.start(sleeper, []);
    const done = children.start(quick, []);
    expect(await running.nextLine()).toBe("ready");
    expect(await done.nextLine()).toBe("bye");
    if (done.process.exitCode === null) await once(done.process, "exit");
    const closed = once(running.process, "exit");
    children.killAll();
    await closed;
    expect(running.process.signalCode).toBe("SIGKILL");
    expect(done.process.exitCode).toBe(0);
    expect(done.process.signalCode).toBeNull();
  });
});
