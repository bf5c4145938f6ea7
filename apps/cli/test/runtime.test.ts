import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { openRuntime } from "../src/runtime/runtime.js";
import { createServerProcesses } from "../src/runtime/server-connections.js";
import { IDENTITY_KEY_FILE } from "../src/runtime/server-identity.js";
import { STATE_DB_FILE } from "../src/state/state-paths.js";
import type { CliIo } from "../src/terminal/io.js";
import { directory, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

function quietIo(cwd: string): CliIo {
  return { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {}, cwd };
}

describe("openRuntime", () => {
  it("closes the state it opened when composing the rest fails, so nothing holds the database", async () => {
    const config = writeConfig({ workspaceRoot: ".", mcpServers: {} });
    const stateDir = join(directory(), "state");
    mkdirSync(stateDir);
    // A directory where the server identity key belongs: the key cannot be read or created.
    mkdirSync(join(stateDir, IDENTITY_KEY_FILE));

    await expect(
      openRuntime({ config, stateDir }, quietIo(directory()), createServerProcesses()),
    ).rejects.toMatchObject({ name: "StateError" });

    // The database was opened (its file exists), and closed: SQLite removes a WAL database's -wal
    // and -shm files when its last connection closes.
    expect(existsSync(join(stateDir, STATE_DB_FILE))).toBe(true);
    expect(readdirSync(stateDir).filter((name) => /-(wal|shm)$/.test(name))).toEqual([]);
  });
});
