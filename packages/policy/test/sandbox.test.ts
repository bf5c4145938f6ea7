import { executeInSandbox, type NetworkPolicy, NO_ISOLATION, PolicyError, type Sandbox } from "@agent/policy";
import { describe, expect, it } from "vitest";

describe("executeInSandbox", () => {
  it("runs through the no-isolation runner by default, which says it isolates nothing", async () => {
    expect(NO_ISOLATION).toMatchObject({ name: "none", isolates: false });
    expect(await executeInSandbox(async () => 42, { network: "deny" })).toBe(42);
  });

  it("refuses without running anything when isolation is required but the sandbox does not isolate", async () => {
    let ran = false;
    const attempt = executeInSandbox(
      async () => {
        ran = true;
      },
      { network: "deny", required: true },
    );
    await expect(attempt).rejects.toBeInstanceOf(PolicyError);
    await expect(attempt).rejects.toMatchObject({ code: "sandbox_required" });
    await expect(attempt).rejects.toThrow(/configure an isolating sandbox/);
    expect(ran).toBe(false);
  });

  it("hands the call and the network policy to an isolating sandbox", async () => {
    const seen: NetworkPolicy[] = [];
    const jail: Sandbox = {
      name: "jail",
      isolates: true,
      async run(execute, options) {
        seen.push(options.network);
        return execute();
      },
    };
    expect(
      await executeInSandbox(async () => "ok", { network: "allow", sandbox: jail, required: true }),
    ).toBe("ok");
    expect(seen).toEqual(["allow"]);
  });

  it("passes the call's own failure through unchanged", async () => {
    const failure = new Error("tool broke");
    await expect(
      executeInSandbox(
        async () => {
          throw failure;
        },
        { network: "deny" },
      ),
    ).rejects.toBe(failure);
  });
});
