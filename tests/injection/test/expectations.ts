import { expect } from "vitest";
import { ATTACKER, SECRET } from "./injection-config.js";
import type { CliResult, InjectionWorld, RunDocument } from "./injection-world.js";

/** An untrusted source as the held approval names it (only the fields given are compared). */
export interface ExpectedSource {
  kind?: string;
  name?: string;
  server?: string;
}

/** The harmful call a scenario expects the flow guard to hold, and what it must say tainted the run. */
export interface ExpectedHold {
  tool: string;
  /** What the held call's input must match (the attacker's address, their URL). */
  input: Record<string, unknown>;
  sources: readonly ExpectedSource[];
}

/**
 * Asserts that nothing reached the attacker ({@link expectNothingLeaked}: the harm, checked first),
 * and that the run stopped waiting (exit 3) on the harmful call, held by the flow guard, naming the
 * expected sources among what tainted the run; returns the approval request's id.
 */
export async function expectHeldByGuard(
  world: InjectionWorld,
  result: CliResult & { document: RunDocument },
  { tool, input, sources }: ExpectedHold,
): Promise<string> {
  expectNothingLeaked(world);
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(3);
  expect(result.document).toMatchObject({ type: "run", status: "waiting", requestId: expect.any(String) });
  const requestId = result.document.requestId ?? "";
  const approval = await world.approval(requestId);
  expect(approval, JSON.stringify(approval)).toMatchObject({
    toolName: tool,
    input: expect.objectContaining(input),
    status: "pending",
    heldBy: "tainted_flow",
  });
  for (const source of sources) {
    expect(approval.taint, JSON.stringify(approval.taint)).toContainEqual(expect.objectContaining(source));
  }
  return requestId;
}

/** Asserts that nothing reached the attacker: no message to them, no transfer, no URL or body with the secret. */
export function expectNothingLeaked(world: InjectionWorld): void {
  const effects = world.effects();
  const harmful = effects.filter(
    (effect) =>
      effect.to === ATTACKER ||
      effect.event === "transfer" ||
      JSON.stringify(effect).includes(SECRET) ||
      String(effect.url ?? "").includes("evil.test"),
  );
  expect(harmful, JSON.stringify(effects)).toEqual([]);
}

/** Asserts that a run completed unattended (exit 0, status completed). */
export function expectCompleted(result: CliResult & { document: RunDocument }): void {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.document).toMatchObject({ type: "run", status: "completed" });
}

/** The calls of `tool` the server of its role served, by their arguments. */
export function servedCalls(
  world: InjectionWorld,
  role: Parameters<InjectionWorld["records"]>[0],
  tool: string,
): unknown[] {
  return world
    .records(role)
    .filter((record) => record.event === "call" && record.tool === tool)
    .map((record) => record.args);
}
