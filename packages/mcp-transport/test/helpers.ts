import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpTransport } from "@agent/mcp-transport";
import { expect, onTestFinished } from "vitest";
import { loadFactor } from "../../../vitest.shared.js";

const require = createRequire(import.meta.url);

/** Entry point of the reference server-everything (`node <it> stdio|streamableHttp`). */
export const EVERYTHING_ENTRY = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
/** Entry point of the reference server-filesystem (`node <it> <allowed directory>`). */
export const FILESYSTEM_ENTRY = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

/** The `initialize` params a minimal client sends. */
export const INITIALIZE_PARAMS = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "mcp-transport-tests", version: "0.0.0" },
};

/** A signal that never aborts. */
export function never(): AbortSignal {
  return new AbortController().signal;
}

/** Runs the MCP handshake at the raw transport level and returns the server's `initialize` result. */
export async function initialize(transport: McpTransport): Promise<Record<string, unknown>> {
  const response = await transport.request("initialize", INITIALIZE_PARAMS, {
    signal: never(),
    timeoutMs: 15_000,
  });
  if (!response.ok) throw new Error(`initialize failed: ${response.error.code} ${response.error.message}`);
  expect(await transport.notify("notifications/initialized")).toEqual({ ok: true });
  return response.result as Record<string, unknown>;
}

/** Closes the transport when the current test ends, pass or fail. */
export function closeAfterTest<T extends McpTransport>(transport: T): T {
  onTestFinished(() => transport.close());
  return transport;
}

/** A fresh temporary directory, removed when the current test ends. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "mcp-transport-test-"));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/**
 * Polls until `probe` returns a truthy value, or fails after `timeoutMs`: by default 5 s (what a
 * child server takes, idle, to act on a message) times how busy the machine is when the wait begins.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  timeoutMs = Math.round(5000 * loadFactor()),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
