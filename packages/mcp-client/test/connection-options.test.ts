import { defineTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  assertWholeNumber,
  buildSnapshot,
  DEFAULT_RECONNECT_POLICY,
  DEFAULT_SERVER_TIMEOUTS,
  MAX_TIMEOUT_MS,
  type McpServerConnectionOptions,
  type McpServerTimeouts,
  type ReconnectPolicy,
  resolveIdleTimeout,
  resolveListingLimits,
  resolveReconnectPolicy,
  resolveTimeouts,
  type SnapshotParts,
} from "../src/connection-options.js";
import type { InitializeResult } from "../src/handshake.js";

const base = { name: "docs" } as McpServerConnectionOptions;

describe("resolveTimeouts", () => {
  it("fills what the caller leaves unset, an explicit undefined included, and keeps what it sets", () => {
    expect(resolveTimeouts()).toEqual(DEFAULT_SERVER_TIMEOUTS);
    // An explicit undefined, as a JavaScript caller (or a spread of unset options) may pass it.
    const unset = { initializeMs: undefined, callMs: 250 } as unknown as Partial<McpServerTimeouts>;
    expect(resolveTimeouts(unset)).toEqual({
      ...DEFAULT_SERVER_TIMEOUTS,
      callMs: 250,
    });
  });
});

describe("resolveReconnectPolicy", () => {
  it("is off unless asked for; true takes the defaults; a partial policy fills the rest", () => {
    expect(resolveReconnectPolicy(undefined)).toBeUndefined();
    expect(resolveReconnectPolicy(false)).toBeUndefined();
    expect(resolveReconnectPolicy(true)).toEqual(DEFAULT_RECONNECT_POLICY);
    const partial = { maxAttempts: 2, maxDelayMs: undefined } as unknown as Partial<ReconnectPolicy>;
    expect(resolveReconnectPolicy(partial)).toEqual({
      ...DEFAULT_RECONNECT_POLICY,
      maxAttempts: 2,
    });
  });

  it("allows reconnecting at once (delays of 0) but never zero attempts", () => {
    expect(resolveReconnectPolicy({ initialDelayMs: 0, maxDelayMs: 0 })).toMatchObject({
      initialDelayMs: 0,
      maxDelayMs: 0,
    });
    expect(() => resolveReconnectPolicy({ maxAttempts: 0 })).toThrow(
      "reconnect.maxAttempts must be a whole number of attempts from 1 to",
    );
  });
});

describe("resolveListingLimits and resolveIdleTimeout", () => {
  it("set only the limits the caller gives, the byte budget under the name discovery uses", () => {
    expect(resolveListingLimits(base)).toEqual({});
    expect(resolveListingLimits({ ...base, maxPages: 3, maxListingBytes: 4096 })).toEqual({
      maxPages: 3,
      maxBytes: 4096,
    });
  });

  it("leave idleness off when unset, and take a whole number of milliseconds up to the timer's limit", () => {
    expect(resolveIdleTimeout(base)).toBeUndefined();
    expect(resolveIdleTimeout({ ...base, idleTimeoutMs: MAX_TIMEOUT_MS })).toBe(MAX_TIMEOUT_MS);
    expect(() => resolveIdleTimeout({ ...base, idleTimeoutMs: 0 })).toThrow(/^idleTimeoutMs must be/);
  });
});

describe("assertWholeNumber", () => {
  it("says what was expected and what came instead: the number, or the type of what is not one", () => {
    expect(() => assertWholeNumber("maxPages", 2.5, 1, 10, "pages")).toThrow(
      "maxPages must be a whole number of pages from 1 to 10, got 2.5.",
    );
    expect(() => assertWholeNumber("maxPages", "3", 1, 10, "pages")).toThrow(/got string\.$/);
    expect(() => assertWholeNumber("maxPages", 11, 1, 10, "pages")).toThrow(
      expect.objectContaining({ code: "invalid_option" }),
    );
    expect(() => assertWholeNumber("maxPages", 10, 1, 10, "pages")).not.toThrow();
  });
});

describe("buildSnapshot", () => {
  const tool = defineTool({
    name: "mcp__docs__search",
    description: "Search the docs",
    effect: "external",
    schema: z.object({ q: z.string() }),
    execute: () => "",
  });
  const initialized: InitializeResult = {
    protocolVersion: "2025-06-18",
    capabilities: {},
    serverInfo: { name: "docs-server", version: "1.0.0" },
    instructions: undefined,
  };
  const parts = (overrides: Partial<SnapshotParts> = {}): SnapshotParts => ({
    name: "docs",
    state: "ready",
    initialized,
    wire: { era: "handshake" },
    error: undefined,
    tools: [tool],
    rejected: [{ remoteName: "bad", reason: "unsupported_input_schema" }],
    excluded: ["hidden"],
    catalog: { resources: [1, 2], templates: [1], prompts: [], rejected: [] },
    ...overrides,
  });

  it("describes the connection: protocol of the handshake, its tools by remote name, catalog counts", () => {
    expect(buildSnapshot(parts())).toEqual({
      name: "docs",
      state: "ready",
      protocolVersion: "2025-06-18",
      protocolEra: "handshake",
      serverInfo: { name: "docs-server", version: "1.0.0" },
      error: undefined,
      tools: [
        {
          name: "mcp__docs__search",
          remoteName: "search",
          effect: "external",
          description: "Search the docs",
        },
      ],
      rejected: [{ remoteName: "bad", reason: "unsupported_input_schema" }],
      excluded: ["hidden"],
      catalog: { resources: 2, resourceTemplates: 1, prompts: 0, rejected: [] },
    });
  });

  it("names the stateless protocol's version, and no era before a connection was made", () => {
    const stateless = buildSnapshot(parts({ wire: { era: "stateless", protocolVersion: "2026-07-28" } }));
    expect(stateless).toMatchObject({ protocolVersion: "2026-07-28", protocolEra: "stateless" });
    const never = buildSnapshot(parts({ state: "failed", initialized: undefined, tools: [] }));
    expect(never).toMatchObject({
      protocolVersion: undefined,
      protocolEra: undefined,
      serverInfo: undefined,
    });
  });

  it("copies the lists, so later changes of the connection do not show through", () => {
    const rejected = [{ remoteName: "bad", reason: "why" }];
    const excluded = ["hidden"];
    const snapshot = buildSnapshot(parts({ rejected, excluded }));
    rejected.push({ remoteName: "later", reason: "why" });
    excluded.push("later");
    expect(snapshot.rejected).toHaveLength(1);
    expect(snapshot.excluded).toEqual(["hidden"]);
  });
});
