import { PassThrough } from "node:stream";
import { definePolicy, type PolicyConfig } from "@agent/policy";
import { describe, expect, it } from "vitest";
import { formRefusal } from "../src/runtime/form-policy.js";
import { createElicitationHandler } from "../src/terminal/elicitation-prompt.js";
import type { CliIo } from "../src/terminal/io.js";

/** A terminal (both streams TTYs) whose output is collected and whose input never comes. */
function terminal(): { io: CliIo; shown: () => string } {
  const stderr = Object.assign(new PassThrough(), { isTTY: true });
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  let shown = "";
  stderr.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
  });
  return { io: { stdout, stderr, stdin, env: {}, cwd: "/work" }, shown: () => shown };
}

const FORM = { server: "forms", message: "Your name?", fields: [], sensitive: false };

async function answerUnder(config: PolicyConfig, signal = new AbortController().signal) {
  const { io, shown } = terminal();
  const policy = definePolicy(config);
  const handler = createElicitationHandler(io, {
    json: false,
    refusal: (server) => formRefusal(policy, server),
  });
  const answer = await Promise.race([
    handler(FORM, { signal }),
    new Promise((resolve) => setTimeout(() => resolve("still asking"), 200)),
  ]);
  return { answer, shown: shown() };
}

describe("a server's forms under the policy", () => {
  it("from a server a rule denies are declined at once, never shown at the terminal", async () => {
    const { answer, shown } = await answerUnder({ rules: [{ tool: "mcp__forms__*", decision: "deny" }] });
    expect(answer).toEqual({ action: "decline" });
    expect(shown).toContain('"forms" asked for input; declined (the policy rule "mcp__forms__*" denies it)');
    expect(shown).not.toContain("Your name?");
  });

  it("are asked as before where no rule denies them, also when external tools are denied by default", async () => {
    const controller = new AbortController();
    const { answer, shown } = await answerUnder({ defaults: { external: "deny" } }, controller.signal);
    controller.abort();
    expect(answer).toBe("still asking");
    expect(shown).toContain("Your name?");
  });
});
