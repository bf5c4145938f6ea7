import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { ConfigError, loadConfig } from "../src/config/index.js";

let current: string | undefined;

/** Gives each test of the calling file a fresh temporary directory for its configuration files. */
export function useConfigDirectory(): void {
  beforeEach(() => {
    current = mkdtempSync(join(tmpdir(), "agent-config-"));
  });
  afterEach(() => {
    if (current) rmSync(current, { recursive: true, force: true });
    current = undefined;
  });
}

/** The current test's configuration directory (see {@link useConfigDirectory}). */
export function directory(): string {
  if (current === undefined) throw new Error("Call useConfigDirectory() at the top of the test file.");
  return current;
}

/** Writes a configuration file (JSON of `content`, or `content` as is when it is a string); returns its path. */
export function writeConfig(content: unknown, name = "agent.config.json"): string {
  const file = join(directory(), name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The ConfigError that loading `file` throws; fails the test if it loads. */
export function loadError(file: string, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(file, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}
