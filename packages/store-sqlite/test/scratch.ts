import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type OpenSqliteStateOptions, openSqliteState } from "../src/file/index.js";
import type { SqliteState } from "../src/index.js";

/**
 * A fresh directory per test, removed after it with every state opened in it: `file` is where a
 * test's database lives, `open` opens it (again) and closes it at the end.
 */
export function useScratchDirectory(): {
  dir(): string;
  file(): string;
  open(options?: Omit<OpenSqliteStateOptions, "file">): SqliteState;
} {
  let dir: string | undefined;
  const opened: SqliteState[] = [];
  afterEach(() => {
    for (const state of opened.splice(0)) state.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const scratch = () => {
    dir ??= mkdtempSync(join(tmpdir(), "store-sqlite-"));
    return dir;
  };
  return {
    dir: scratch,
    file: () => join(scratch(), "state.db"),
    open(options = {}) {
      const state = openSqliteState({ file: join(scratch(), "state.db"), ...options });
      opened.push(state);
      return state;
    },
  };
}
