/**
 * The official MCP conformance suite's client scenarios (scripts/conformance/scenarios.json) against
 * our client under test, on loopback. One test: the runner bundles the client once and runs every
 * scenario; a failing scenario fails the test with the suite's own report. Wall-clock timing checks
 * (sse-retry's reconnect delay) are reported, not fatal here: tests never assert timings.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const runner = fileURLToPath(new URL("../../../scripts/conformance/run.mjs", import.meta.url));

function runSuite(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, "--timing=report"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

it("passes every listed client scenario of the official conformance suite", {
  timeout: 600_000,
}, async () => {
  const { code, output } = await runSuite();
  expect(output).toMatch(/\d+ passed, 0 failed/);
  expect(code, output).toBe(0);
});
