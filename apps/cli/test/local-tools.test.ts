import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeToolCall, type Observation, type ToolGate, ToolRegistry } from "@agent/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalTools, LOCAL_TOOL_NAMES } from "../src/local-tools/index.js";

let base: string;
let root: string;
let outside: string;

// These tests are about confinement, not authorization: the gate lets every call through.
const ALLOW_ALL: ToolGate = {
  admit: async () => ({ type: "allow", via: "policy", isolation: "none", run: (execute) => execute() }),
};

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "agent-local-tools-"));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "outside secret");
  writeFileSync(join(root, "inside.txt"), "inside text");
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

async function call(name: string, input: unknown, workspaceRoot = root): Promise<Observation> {
  const registry = new ToolRegistry();
  registry.registerAll(createLocalTools({ workspaceRoot }));
  const outcome = await executeToolCall(
    { name, input },
    { registry, gate: ALLOW_ALL, runId: "run_test", cwd: root },
  );
  if (outcome.type !== "observation") throw new Error("expected an observation");
  return outcome;
}

async function output(name: string, input: unknown, workspaceRoot = root): Promise<unknown> {
  const observation = await call(name, input, workspaceRoot);
  if (!observation.ok) throw new Error(`${name} failed: ${observation.message}`);
  return observation.output;
}

async function refusal(name: string, input: unknown): Promise<string> {
  const observation = await call(name, input);
  if (observation.ok) throw new Error(`${name} was expected to fail`);
  expect(observation.error).toBe("tool_error");
  return observation.message;
}

describe("createLocalTools", () => {
  it("defines read, list and write tools with their effects", () => {
    const tools = createLocalTools({ workspaceRoot: root });
    expect(tools.map((tool) => [tool.name, tool.effect])).toEqual([
      ["read_file", "read"],
      ["list_directory", "read"],
      ["write_file", "write"],
    ]);
    expect(tools.map((tool) => tool.name)).toEqual([...LOCAL_TOOL_NAMES]);
    // The root is part of the definition: an approval for one root cannot match another.
    const [other] = createLocalTools({ workspaceRoot: outside });
    expect(other?.fingerprint).not.toBe(tools[0]?.fingerprint);
  });
});

describe("write_file and read_file", () => {
  it("round-trips a file, atomically and without leftovers", async () => {
    expect(
      await output("write_file", { path: "notes/a.txt", content: "héllo\n", createDirectories: true }),
    ).toEqual({
      path: "notes/a.txt",
      bytes: 7,
      created: true,
    });
    expect(await output("read_file", { path: "notes/a.txt" })).toEqual({
      path: "notes/a.txt",
      content: "héllo\n",
      size: 7,
      truncated: false,
    });
    expect(await output("write_file", { path: "notes/a.txt", content: "second" })).toMatchObject({
      created: false,
    });
    expect(readFileSync(join(root, "notes", "a.txt"), "utf8")).toBe("second");
    expect(readdirSync(join(root, "notes"))).toEqual(["a.txt"]);
  });

  it("needs createDirectories to create missing parents", async () => {
    expect(await refusal("write_file", { path: "new/dir/a.txt", content: "x" })).toContain(
      "createDirectories: true",
    );
    expect(readdirSync(root)).toEqual(["inside.txt"]);
  });

  it("accepts '..' that stays inside and absolute paths inside the root", async () => {
    mkdirSync(join(root, "sub"));
    expect(await output("read_file", { path: "sub/../inside.txt" })).toMatchObject({ path: "inside.txt" });
    expect(await output("read_file", { path: join(root, "inside.txt") })).toMatchObject({
      content: "inside text",
    });
  });

  it("cuts long files at maxBytes without splitting a character, and refuses binary files", async () => {
    writeFileSync(join(root, "long.txt"), "aé".repeat(10));
    expect(await output("read_file", { path: "long.txt", maxBytes: 5 })).toEqual({
      path: "long.txt",
      content: "aéa",
      size: 30,
      truncated: true,
    });
    writeFileSync(join(root, "image.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(await refusal("read_file", { path: "image.bin" })).toContain("looks binary");
    writeFileSync(join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await refusal("read_file", { path: "latin1.txt" })).toContain("not UTF-8 text");
    expect(await refusal("read_file", { path: "missing.txt" })).toContain("No file");
  });

  it("refuses directories and special files without opening them", async () => {
    mkdirSync(join(root, "dir"));
    expect(await refusal("read_file", { path: "dir" })).toContain("is a directory; use list_directory");
    // Opening a FIFO for reading would block until a writer appears.
    execFileSync("mkfifo", [join(root, "pipe")]);
    expect(await refusal("read_file", { path: "pipe" })).toContain("is not a regular file");
    expect(await refusal("write_file", { path: "pipe", content: "x" })).toContain("is not a regular file");
    expect(await refusal("write_file", { path: "dir", content: "x" })).toContain("is a directory");
  });
});

describe("confinement to the workspace root", () => {
  it("refuses '..' leading out of the root", async () => {
    mkdirSync(join(root, "sub"));
    for (const path of ["../outside/secret.txt", "sub/../../outside/secret.txt", ".."]) {
      expect(await refusal("read_file", { path })).toContain("outside the workspace root");
    }
    expect(await refusal("list_directory", { path: "../outside" })).toContain("outside the workspace root");
    expect(await refusal("write_file", { path: "../outside/new.txt", content: "x" })).toContain(
      "outside the workspace root",
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses absolute paths outside the root", async () => {
    const message = await refusal("read_file", { path: join(outside, "secret.txt") });
    expect(message).toBe(
      `Refused path ${JSON.stringify(join(outside, "secret.txt"))}: it is outside the workspace root; use a path relative to the root, without '..' leading out of it.`,
    );
    expect(await refusal("read_file", { path: "/etc/passwd" })).toContain("outside the workspace root");
    expect(await refusal("write_file", { path: join(outside, "new.txt"), content: "x" })).toContain(
      "outside",
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a file symlink that leads out of the root, for reading and writing", async () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    expect(await refusal("read_file", { path: "link.txt" })).toContain("a symbolic link in it leads outside");
    expect(await refusal("write_file", { path: "link.txt", content: "overwritten" })).toContain(
      "leads outside",
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  it("refuses a directory symlink that leads out of the root", async () => {
    symlinkSync(outside, join(root, "linkdir"));
    expect(await refusal("read_file", { path: "linkdir/secret.txt" })).toContain("leads outside");
    expect(await refusal("list_directory", { path: "linkdir" })).toContain("leads outside");
    expect(await refusal("write_file", { path: "linkdir/new.txt", content: "x" })).toContain("leads outside");
    expect(
      await refusal("write_file", { path: "linkdir/deep/new.txt", content: "x", createDirectories: true }),
    ).toContain("leads outside");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a dangling symlink, whose destination cannot be checked", async () => {
    symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    expect(await refusal("write_file", { path: "dangling.txt", content: "x" })).toContain(
      "target does not exist",
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("follows symlinks that stay inside the root", async () => {
    symlinkSync(join(root, "inside.txt"), join(root, "alias.txt"));
    mkdirSync(join(root, "real-dir"));
    symlinkSync(join(root, "real-dir"), join(root, "dir-alias"));
    expect(await output("read_file", { path: "alias.txt" })).toMatchObject({
      path: "inside.txt",
      content: "inside text",
    });
    expect(await output("write_file", { path: "alias.txt", content: "through the alias" })).toMatchObject({
      path: "inside.txt",
      created: false,
    });
    expect(readFileSync(join(root, "inside.txt"), "utf8")).toBe("through the alias");
    expect(lstatSync(join(root, "alias.txt")).isSymbolicLink()).toBe(true);
    expect(await output("write_file", { path: "dir-alias/b.txt", content: "b" })).toMatchObject({
      path: "real-dir/b.txt",
    });
  });

  it("works when the root itself is reached through a symlink", async () => {
    const linkedRoot = join(base, "linked-root");
    symlinkSync(root, linkedRoot);
    expect(await output("read_file", { path: "inside.txt" }, linkedRoot)).toMatchObject({
      content: "inside text",
    });
    expect(await output("read_file", { path: join(linkedRoot, "inside.txt") }, linkedRoot)).toMatchObject({
      path: "inside.txt",
    });
  });
});

describe("list_directory", () => {
  it("lists names, types and file sizes, sorted, without following links", async () => {
    mkdirSync(join(root, "b-dir"));
    writeFileSync(join(root, "a.txt"), "12345");
    symlinkSync(outside, join(root, "c-link"));
    expect(await output("list_directory", {})).toEqual({
      path: ".",
      entries: [
        { name: "a.txt", type: "file", size: 5 },
        { name: "b-dir", type: "directory" },
        { name: "c-link", type: "symlink" },
        { name: "inside.txt", type: "file", size: 11 },
      ],
      truncated: false,
    });
    expect(await refusal("list_directory", { path: "inside.txt" })).toContain("not a directory");
  });
});
