import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeToolCall, type Observation, type ToolGate, ToolRegistry } from "@agent/tools";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createLocalTools } from "../src/local-tools/index.js";

const ROUNDS = 300;
// More rounds only if the first ROUNDS never caught a swap mid-call (a very loaded machine).
const MAX_ROUNDS = 1500;
const OUTSIDE_TEXT = "OUTSIDE: must never be read or overwritten";

const ALLOW_ALL: ToolGate = {
  admit: async () => ({ type: "allow", via: "policy", isolation: "none", run: (execute) => execute() }),
};

// Flips `ws/d` between a real directory and a symbolic link to the outside directory until killed,
// staying in each state for a random short while, so checks and opens of the tools land on both.
const FLIPPER = `
const fs = require("node:fs");
const [d, parked, outside] = process.argv.slice(1);
const cell = new Int32Array(new SharedArrayBuffer(4));
const linger = () => Atomics.wait(cell, 0, 0, Math.random() * 0.2);
process.stdout.write("ready\\n");
for (;;) {
  try {
    fs.renameSync(d, parked);
    fs.symlinkSync(outside, d);
    linger();
    fs.unlinkSync(d);
    fs.renameSync(parked, d);
    linger();
  } catch {}
}
`;

/** The refusal code a failed local tool call carries (`data.refusal`), or its error code. */
function refusalOf(observation: Observation): string {
  if (observation.ok) return "ok";
  const data = (observation as { data?: { refusal?: unknown } }).data;
  return typeof data?.refusal === "string" ? data.refusal : observation.error;
}

/** Whether calls met both states and at least one was caught between its check and its open. */
function raceWasHit(endings: ReadonlyMap<string, number>): boolean {
  return ["ok", "outside_workspace", "path_changed"].every((ending) => (endings.get(ending) ?? 0) > 0);
}

let base: string;
let flipper: ChildProcess | undefined;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "agent-race-"));
});

afterEach(async () => {
  if (flipper && flipper.exitCode === null && flipper.signalCode === null) {
    const exited = new Promise((resolve) => flipper?.once("exit", resolve));
    flipper.kill("SIGKILL");
    await exited;
  }
  flipper = undefined;
  rmSync(base, { recursive: true, force: true });
});

// A budget for a loaded machine, not a timing assertion: the test asserts only what happened to files.
it(`stays inside the workspace while another process swaps a directory for a link mid-call, ${ROUNDS}+ rounds`, {
  timeout: 60_000,
}, async () => {
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(join(ws, "d"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, "d", "file"), "inside");
  writeFileSync(join(outside, "file"), OUTSIDE_TEXT);
  writeFileSync(join(outside, "OUTSIDE-marker"), "");

  const registry = new ToolRegistry();
  registry.registerAll(createLocalTools({ workspaceRoot: ws }));
  const run = async (name: string, input: unknown): Promise<Observation> => {
    const outcome = await executeToolCall(
      { name, input },
      { registry, gate: ALLOW_ALL, runId: "run", cwd: ws },
    );
    if (outcome.type !== "observation") throw new Error("expected an observation");
    return outcome;
  };

  flipper = spawn(process.execPath, ["-e", FLIPPER, join(ws, "d"), join(ws, "d-parked"), outside], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise<void>((resolve) => flipper?.stdout?.once("data", () => resolve()));

  const seen: string[] = [];
  // How each call ended: "ok", or the refusal code of a failed one.
  const endings = new Map<string, number>();
  const tally = (observation: Observation): void => {
    const ending = observation.ok ? "ok" : refusalOf(observation);
    endings.set(ending, (endings.get(ending) ?? 0) + 1);
  };
  for (let round = 0; round < ROUNDS || !raceWasHit(endings); round += 1) {
    if (round >= MAX_ROUNDS) break;
    const read = await run("read_file", { path: "d/file" });
    if (read.ok) seen.push((read.output as { content: string }).content);
    const listed = await run("list_directory", { path: "d" });
    if (listed.ok) seen.push(JSON.stringify(listed.output));
    const written = await run("write_file", { path: "d/file", content: `round ${round}` });
    for (const observation of [read, listed, written]) tally(observation);
  }
  flipper.kill("SIGKILL");

  // Not vacuous: calls met the directory, met the link, and were caught mid-swap (a component
  // changed between its check and its open), so the swaps did land inside calls.
  expect(Object.fromEntries(endings)).toMatchObject({
    ok: expect.any(Number),
    outside_workspace: expect.any(Number),
    path_changed: expect.any(Number),
  });

  // Judged from outside: the outside file is intact, nothing was created next to it, and no answer
  // ever carried its content.
  expect(readFileSync(join(outside, "file"), "utf8")).toBe(OUTSIDE_TEXT);
  expect(readdirSync(outside).sort()).toEqual(["OUTSIDE-marker", "file"]);
  expect(seen.filter((text) => text.includes("OUTSIDE"))).toEqual([]);
});
