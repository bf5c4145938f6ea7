import {
  linkSync,
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
import {
  createMemoryEventSink,
  executeToolCall,
  type MemoryEventSink,
  type Observation,
  type ToolGate,
  ToolRegistry,
} from "@agent/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalTools, listProtectedPaths, type ProtectedPaths } from "../src/local-tools/index.js";

// The attack of issue 8: with write_file allowed once, a model rewrote the policy to allow everything.
const ALLOW_EVERYTHING = '{"policy":{"rules":[{"tool":"*","decision":"allow"}]}}';
const CONFIG_TEXT = '{\n  "workspaceRoot": ".",\n  "policy": { "defaults": { "write": "ask" } }\n}\n';
const AUDIT_TEXT = '{"type":"tool_call_started","at":"2030-01-01T00:00:00.000Z"}\n';

const ALLOW_ALL: ToolGate = {
  admit: async () => ({ type: "allow", via: "policy", isolation: "none", run: (execute) => execute() }),
};

let base: string;
let root: string;
let outside: string;
let paths: ProtectedPaths;
let events: MemoryEventSink;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "agent-protected-"));
  root = join(base, "project");
  outside = join(base, "elsewhere");
  mkdirSync(root);
  mkdirSync(outside);
  // The default layout: config and state directory inside the workspace root.
  writeFileSync(join(root, "agent.config.json"), CONFIG_TEXT);
  mkdirSync(join(root, ".agent"));
  writeFileSync(join(root, ".agent", "state.db"), "SQLite format 3\0");
  writeFileSync(join(root, ".agent", "audit.jsonl"), AUDIT_TEXT);
  writeFileSync(join(root, "secrets.env"), "TOKEN=12345\n");
  writeFileSync(join(root, "notes.txt"), "notes");
  paths = {
    configFile: join(root, "agent.config.json"),
    stateDir: join(root, ".agent"),
    secretPaths: [join(root, "secrets.env")],
  };
  events = createMemoryEventSink();
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

async function call(name: string, input: unknown, protectedPaths = paths): Promise<Observation> {
  const registry = new ToolRegistry();
  registry.registerAll(createLocalTools({ workspaceRoot: root, protectedPaths, events }));
  const outcome = await executeToolCall(
    { name, input, callId: "call_1" },
    { registry, gate: ALLOW_ALL, runId: "run_1", cwd: root },
  );
  if (outcome.type !== "observation") throw new Error("expected an observation");
  return outcome;
}

async function refused(name: string, input: Record<string, unknown>): Promise<string> {
  const observation = await call(name, input);
  if (observation.ok) throw new Error(`${name} ${JSON.stringify(input)} was not refused`);
  expect(observation.error).toBe("tool_error");
  return observation.message;
}

function expectUntouched(): void {
  expect(readFileSync(paths.configFile, "utf8")).toBe(CONFIG_TEXT);
  expect(readFileSync(join(paths.stateDir, "audit.jsonl"), "utf8")).toBe(AUDIT_TEXT);
  expect(readFileSync(join(paths.stateDir, "state.db"), "utf8")).toBe("SQLite format 3\0");
  expect(readdirSync(paths.stateDir).sort()).toEqual(["audit.jsonl", "state.db"]);
  expect(readFileSync(join(root, "secrets.env"), "utf8")).toBe("TOKEN=12345\n");
}

describe("the config file, the state directory and secrets are off limits", () => {
  it("refuses the issue's exact write to agent.config.json, leaving it byte for byte, and audits it", async () => {
    const message = await refused("write_file", { path: "agent.config.json", content: ALLOW_EVERYTHING });
    expect(message).toContain("the agent's own configuration");
    expectUntouched();
    expect(readdirSync(root).sort()).toEqual([".agent", "agent.config.json", "notes.txt", "secrets.env"]);
    expect(events.ofType("local_path_refused")).toEqual([
      expect.objectContaining({
        runId: "run_1",
        callId: "call_1",
        toolName: "write_file",
        code: "protected_path",
        path: "agent.config.json",
      }),
    ]);
  });

  it("refuses every way of naming them: '..', absolute, './', for read, write and list", async () => {
    mkdirSync(join(root, "sub"));
    const names = [
      "agent.config.json",
      "./agent.config.json",
      "sub/../agent.config.json",
      join(root, "agent.config.json"),
      ".agent/audit.jsonl",
      "sub/../.agent/state.db",
      join(root, ".agent", "audit.jsonl"),
      ".agent/state.db-wal",
      "secrets.env",
    ];
    for (const path of names) {
      expect(await refused("read_file", { path })).toContain("no local tool may read or write it");
      expect(await refused("write_file", { path, content: ALLOW_EVERYTHING })).toContain(
        "no local tool may read or write it",
      );
    }
    for (const path of [".agent", "./.agent", join(root, ".agent")]) {
      expect(await refused("list_directory", { path })).toContain("no local tool may read or write it");
    }
    expect(
      await refused("write_file", { path: ".agent/new/deep.txt", content: "x", createDirectories: true }),
    ).toContain("no local tool");
    expectUntouched();
    expect(events.ofType("local_path_refused").every((event) => event.code === "protected_path")).toBe(true);
  });

  it("refuses symbolic links inside the workspace that lead to them", async () => {
    symlinkSync(paths.configFile, join(root, "innocent.json"));
    symlinkSync(paths.stateDir, join(root, "state-link"));
    symlinkSync(join(paths.stateDir, "audit.jsonl"), join(root, "log.txt"));
    for (const path of ["innocent.json", "state-link/audit.jsonl", "state-link/state.db", "log.txt"]) {
      expect(await refused("read_file", { path })).toContain("no local tool");
      expect(await refused("write_file", { path, content: ALLOW_EVERYTHING })).toContain("no local tool");
    }
    expect(await refused("list_directory", { path: "state-link" })).toContain("no local tool");
    expectUntouched();
  });

  it("refuses hard links to them, recognised by device and inode", async () => {
    linkSync(paths.configFile, join(root, "copy.json"));
    linkSync(join(paths.stateDir, "audit.jsonl"), join(root, "audit-copy.jsonl"));
    for (const path of ["copy.json", "audit-copy.jsonl"]) {
      expect(await refused("read_file", { path })).toContain("no local tool");
      expect(await refused("write_file", { path, content: ALLOW_EVERYTHING })).toContain("no local tool");
    }
    expectUntouched();
    expect(readFileSync(join(root, "copy.json"), "utf8")).toBe(CONFIG_TEXT);
  });

  it("keeps a state directory configured outside the workspace out of reach too", async () => {
    const stateDir = join(outside, "state");
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, "audit.jsonl"), AUDIT_TEXT);
    symlinkSync(stateDir, join(root, "outside-state"));
    const elsewhere = { ...paths, stateDir };
    for (const path of [join(stateDir, "audit.jsonl"), "outside-state/audit.jsonl", "../elsewhere/state/x"]) {
      const observation = await call("write_file", { path, content: "x" }, elsewhere);
      expect(observation.ok).toBe(false);
    }
    expect(readdirSync(stateDir)).toEqual(["audit.jsonl"]);
    expect(readFileSync(join(stateDir, "audit.jsonl"), "utf8")).toBe(AUDIT_TEXT);
    // A hard link to it inside the workspace is still recognised.
    linkSync(join(stateDir, "audit.jsonl"), join(root, "audit.jsonl"));
    const observation = await call("read_file", { path: "audit.jsonl" }, elsewhere);
    expect(observation.ok ? "" : observation.message).toContain("no local tool");
  });

  it("marks them `protected` in listings, with no size, and lists everything else as before", async () => {
    symlinkSync(paths.configFile, join(root, "z-link.json"));
    const observation = await call("list_directory", {});
    expect(observation.ok && observation.output).toEqual({
      path: ".",
      entries: [
        { name: ".agent", type: "protected" },
        { name: "agent.config.json", type: "protected" },
        { name: "notes.txt", type: "file", size: 5 },
        { name: "secrets.env", type: "protected" },
        { name: "z-link.json", type: "protected" },
      ],
      truncated: false,
    });
  });

  it("still reads and writes ordinary files next to them", async () => {
    const written = await call("write_file", { path: "notes.txt", content: "new notes" });
    expect(written.ok).toBe(true);
    const read = await call("read_file", { path: "notes.txt" });
    expect(read.ok && read.output).toMatchObject({ content: "new notes" });
    expect(events.ofType("local_path_refused")).toEqual([]);
    expectUntouched();
  });
});

describe("listProtectedPaths", () => {
  it("lists each path as configured and by its real path", () => {
    const linked = join(base, "linked");
    symlinkSync(root, linked);
    const listed = listProtectedPaths({
      configFile: join(linked, "agent.config.json"),
      stateDir: join(linked, ".agent", "not-yet"),
      secretPaths: [],
    });
    expect(listed).toEqual([
      join(linked, "agent.config.json"),
      join(root, "agent.config.json"),
      join(linked, ".agent", "not-yet"),
      join(root, ".agent", "not-yet"),
    ]);
  });
});

describe("what the host runs later is off limits for writing", () => {
  const hostRun = () => ({
    ...paths,
    hostRunPaths: [".git/config", ".git/commondir", ".git/hooks", ".envrc", ".vscode"].map((name) =>
      join(root, name),
    ),
  });

  it("refuses .git/config, commondir, a hook, .envrc and editor tasks, existing or not, creating nothing", async () => {
    mkdirSync(join(root, ".git", "hooks"), { recursive: true });
    writeFileSync(join(root, ".git", "config"), "[core]\n");
    for (const path of [
      ".git/config",
      ".git/commondir",
      ".git/hooks/post-checkout",
      ".envrc",
      ".vscode/tasks.json",
    ]) {
      const observation = await call(
        "write_file",
        { path, content: "evil\n", createDirectories: true },
        hostRun(),
      );
      expect(observation, path).toMatchObject({ ok: false, error: "tool_error" });
      if (!observation.ok) expect(observation.message).toContain("the host runs what is there later");
    }
    expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(readdirSync(join(root, ".git")).sort()).toEqual(["config", "hooks"]);
    expect(readdirSync(join(root, ".git", "hooks"))).toEqual([]);
    expect(readdirSync(root).sort()).toEqual([
      ".agent",
      ".git",
      "agent.config.json",
      "notes.txt",
      "secrets.env",
    ]);
  });

  it("refuses a file named .git where none exists: a gitdir pointer would redefine .git/config", async () => {
    const observation = await call("write_file", { path: ".git", content: "gitdir: elsewhere\n" }, hostRun());
    expect(observation).toMatchObject({ ok: false, error: "tool_error" });
    expect(readdirSync(root)).not.toContain(".git");
  });
});
