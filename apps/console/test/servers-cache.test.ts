import { describe, expect, it } from "vitest";
import type { ConsoleServer, ServersPort } from "../src/ports.js";
import { createServersCache } from "../src/servers-cache.js";

// A port that counts its reads and answers each with the count, so a kept answer is recognizable.
function countingPort(): ServersPort & { reads: number; failNext: boolean } {
  const port = {
    reads: 0,
    failNext: false,
    async list(): Promise<ConsoleServer[]> {
      port.reads += 1;
      if (port.failNext) {
        port.failNext = false;
        throw new Error("mcp list failed");
      }
      return [{ name: `read-${port.reads}`, state: "ready", isolation: "none", auth: "none", tools: [] }];
    },
  };
  return port;
}

function cacheOn(port: ServersPort, clock: { now: number }) {
  return createServersCache(port, {
    ttlMs: 1000,
    signal: new AbortController().signal,
    now: () => clock.now,
  });
}

describe("the servers' status cache", () => {
  it("answers views within the kept time from one read, and reads again after it", async () => {
    const port = countingPort();
    const clock = { now: 0 };
    const cache = cacheOn(port, clock);
    expect((await cache.read()).servers[0]?.name).toBe("read-1");
    clock.now = 999;
    expect((await cache.read()).servers[0]?.name).toBe("read-1");
    expect(port.reads).toBe(1);
    clock.now = 1000;
    const again = await cache.read();
    expect(again.servers[0]?.name).toBe("read-2");
    expect(again.checkedAt).toBe(new Date(1000).toISOString());
  });

  it("shares one read among views that come while it is under way", async () => {
    const port = countingPort();
    const cache = cacheOn(port, { now: 0 });
    const views = await Promise.all([cache.read(), cache.read(), cache.read()]);
    expect(port.reads).toBe(1);
    expect(new Set(views.map((view) => view.servers[0]?.name))).toEqual(new Set(["read-1"]));
  });

  it("reads again at once after invalidate (the page's Check again)", async () => {
    const port = countingPort();
    const cache = cacheOn(port, { now: 0 });
    await cache.read();
    cache.invalidate();
    expect((await cache.read()).servers[0]?.name).toBe("read-2");
  });

  it("keeps no failed read: the next view asks the port again", async () => {
    const port = countingPort();
    port.failNext = true;
    const cache = cacheOn(port, { now: 0 });
    await expect(cache.read()).rejects.toThrow("mcp list failed");
    expect((await cache.read()).servers[0]?.name).toBe("read-2");
  });
});
