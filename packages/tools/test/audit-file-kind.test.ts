import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolsError } from "@agent/tools";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "audit-kind-"));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

function expectUnusable(path: string): void {
  let thrown: unknown;
  try {
    createJsonlEventSink(path);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ToolsError);
  expect((thrown as ToolsError).code).toBe("audit_file_unusable");
}

describe("createJsonlEventSink refuses anything but a regular file", () => {
  it("a FIFO fails at once instead of blocking until a reader appears", () => {
    const fifo = join(folder, "audit.jsonl");
    execFileSync("mkfifo", [fifo]);
    // Were it opened for writing the ordinary way, this call would never return.
    expectUnusable(fifo);
  });

  it("a symbolic link is not written through, even to a regular file", () => {
    const target = join(folder, "precious.txt");
    writeFileSync(target, "keep me");
    symlinkSync(target, join(folder, "audit.jsonl"));
    expectUnusable(join(folder, "audit.jsonl"));
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });

  it("a dangling symbolic link creates nothing at its target", () => {
    symlinkSync(join(folder, "planted.txt"), join(folder, "audit.jsonl"));
    expectUnusable(join(folder, "audit.jsonl"));
    expect(() => readFileSync(join(folder, "planted.txt"))).toThrow();
  });
});
