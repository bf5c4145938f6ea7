import { describe, expect, it } from "vitest";
import type { McpServerState } from "../src/connection-options.js";
import { ListChangedRouter } from "../src/list-changed.js";

/** A router over a target whose state the test sets and whose reactions it records. */
function createRouter(initial: McpServerState) {
  let state = initial;
  const rediscoveries: number[] = [];
  const catalog: [string, boolean][] = [];
  let releases: (() => void)[] = [];
  const router = new ListChangedRouter({
    state: () => state,
    rediscoverTools: () =>
      new Promise<void>((resolve) => {
        rediscoveries.push(rediscoveries.length + 1);
        releases.push(resolve);
      }),
    catalogChanged: (kind, connecting) => catalog.push([kind, connecting]),
  });
  const releaseAll = () => {
    const pending = releases;
    releases = [];
    for (const release of pending) release();
  };
  return {
    router,
    setState: (next: McpServerState) => {
      state = next;
    },
    rediscoveries,
    catalog,
    releaseAll,
  };
}

const TOOLS = "notifications/tools/list_changed";

describe("ListChangedRouter", () => {
  it("answers a burst of tools/list_changed on a ready connection with one rediscovery and one more", async () => {
    const { router, rediscoveries, releaseAll } = createRouter("ready");
    for (let index = 0; index < 4; index += 1) router.route(TOOLS);
    releaseAll();
    await new Promise((resolve) => setImmediate(resolve));
    releaseAll();
    await router.settled();
    expect(rediscoveries).toEqual([1, 2]);
  });

  it("holds a tools/list_changed sent while connecting until the connection is ready", async () => {
    const { router, setState, rediscoveries, releaseAll } = createRouter("connecting");
    router.route(TOOLS);
    expect(rediscoveries).toEqual([]);
    setState("ready");
    router.connected();
    releaseAll();
    await router.settled();
    expect(rediscoveries).toEqual([1]);
  });

  it("passes resources and prompts changes to the catalog, saying whether the connection is connecting", () => {
    const { router, setState, catalog } = createRouter("connecting");
    router.route("notifications/resources/list_changed");
    setState("ready");
    router.route("notifications/prompts/list_changed");
    expect(catalog).toEqual([
      ["resources", true],
      ["prompts", false],
    ]);
  });

  it("ignores other notifications, and every change on a connection that is neither connecting nor ready", async () => {
    const { router, setState, rediscoveries, catalog } = createRouter("ready");
    router.route("notifications/message");
    router.route("notifications/progress");
    for (const state of ["idle", "dormant", "disconnected", "failed", "closed"] as McpServerState[]) {
      setState(state);
      router.route(TOOLS);
      router.route("notifications/resources/list_changed");
    }
    await router.settled();
    expect([rediscoveries, catalog]).toEqual([[], []]);
  });
});
