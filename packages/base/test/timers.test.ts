import { describe, expect, it } from "vitest";
import { holdsProcess } from "../src/index.js";

/** How many timers keep the process alive now (an unreferenced timer is not listed). */
function liveTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

describe("holdsProcess", () => {
  it("lets a Node timer keep the process alive, or not", () => {
    const before = liveTimers();
    const timer = setTimeout(() => {}, 60_000);
    try {
      expect(liveTimers()).toBe(before + 1);
      holdsProcess(timer, false);
      expect(liveTimers()).toBe(before);
      holdsProcess(timer, true);
      expect(liveTimers()).toBe(before + 1);
    } finally {
      clearTimeout(timer);
    }
  });

  it("does nothing to a timer that is a number, as a browser's is", () => {
    const browserTimer = 7 as unknown as ReturnType<typeof setTimeout>;
    expect(() => holdsProcess(browserTimer, false)).not.toThrow();
    expect(() => holdsProcess(browserTimer, true)).not.toThrow();
  });
});
