import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type MisbehavingServerName,
  misbehavingServerPath,
  readRecordFile,
  type ServerRecord,
  scriptableServerPath,
} from "@agent/mcp-testing/servers";
import { test } from "vitest";
import { assertNothingLeftBehind } from "./e2e-leftovers.js";

/** The built `agent` binary the end-to-end tests spawn (`pnpm turbo run build --filter=@agent/cli...`). */
export const CLI_BIN: string = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

/** The real reference server, as the CLI's devDependency installs it. */
export const EVERYTHING_SERVER: string = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** This package's own test server: tools answering with whole `CallToolResult`s (see the file). */
const RESULT_SERVER: string = fileURLToPath(new URL("./fixtures/result-server.mjs", import.meta.url));

/** Generous per-test timeout: each CLI run that starts a server costs one to two seconds, more on a busy machine. */
export const E2E_TIMEOUT_MS = 45_000;

/** Whether bubblewrap is installed here (CI installs it; tests that need the sandbox skip without it). */
export const BWRAP_AVAILABLE = existsSync("/usr/bin/bwrap") || existsSync("/usr/local/bin/bwrap");

/**
 * How long one CLI run may take before the helper kills it and fails the test: a bound on a hang,
 * not a timing assertion. Sandboxed servers cost a bwrap start each, felt most on a loaded machine.
 */
const RUN_LIMIT_MS = 30_000;

/** A test tool the scriptable server offers (see MCP_TESTING_TOOLS in scriptable-server.mjs). */
export interface ScriptedTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** The text of the answer; the tool answers with its arguments when absent. */
  result?: string;
}

/** One `mcpServers` entry as written into the configuration file. */
export type ServerEntry = Record<string, unknown>;

/** Options of a test server entry. */
export interface TestServerOptions {
  /** Put the wire recorder between CLI and server: every message the server receives becomes a `wire` record. */
  wire?: boolean;
  /** More variables for the server (values may use `${VAR}`). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Options of the scriptable server entry. */
export interface ScriptableServerOptions extends TestServerOptions {
  /** Extra tools; or a raw MCP_TESTING_TOOLS value such as `${E2E_TOOLS}` (expanded by the CLI). */
  tools?: ScriptedTool[] | string;
}

/** How one CLI process ended. */
export interface AgentResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A CLI process still running, for tests that interrupt or tail it. */
export interface RunningAgent {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited and its output is complete. */
  readonly exited: Promise<AgentResult>;
}

/** Options of one CLI run. */
export interface RunOptions {
  /** Added to the minimal environment (PATH, HOME). */
  env?: Record<string, string>;
  /** Leave out `--config` and `--state-dir` (to test AGENT_CONFIG / AGENT_STATE_DIR). */
  bare?: boolean;
  cwd?: string;
  /** Run inside a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr are TTYs. */
  terminal?: boolean;
  /** Give the process a stdin pipe (to answer prompts); otherwise stdin is /dev/null. */
  stdin?: boolean;
  /** How long it may take before it is killed and the test fails; default 20 seconds. */
  limitMs?: number;
  /**
   * Run stdio servers and commands inside bubblewrap: the default wherever it is installed, so the
   * whole suite exercises the sandbox. Each test server may write its record file (a `write` grant);
   * pids it records inside the sandbox are not host pids (see e2e-leftovers.ts). `false` makes
   * AGENT_BWRAP point at nothing (configs default to sandbox "optional"), for tests that must see a
   * server's host pid or run without bubblewrap on purpose.
   */
  isolated?: boolean;
}

/** Whether {@link RunOptions.terminal} works here: it needs util-linux `script`. */
export const CAN_RUN_IN_TERMINAL: boolean = process.platform === "linux" && existsSync("/usr/bin/script");

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * One test's world: a private temporary directory holding the configuration, the state directory,
 * the workspace root and the servers' record files. `cleanup()` fails the test if any process it
 * started (CLI or server) is still alive, and removes the directory.
 */
export class E2eSandbox {
  readonly root: string;
  readonly configPath: string;
  readonly stateDir: string;
  readonly workspace: string;
  readonly #records: string;
  readonly #wireProxy: string;
  readonly #children = new Set<ChildProcess>();

  constructor() {
    if (!existsSync(CLI_BIN)) {
      throw new Error(`${CLI_BIN} does not exist; run "pnpm turbo run build --filter=@agent/cli..." first.`);
    }
    this.root = mkdtempSync(join(tmpdir(), "agent-e2e-"));
    this.configPath = join(this.root, "agent.config.json");
    this.stateDir = join(this.root, "state");
    this.workspace = join(this.root, "workspace");
    this.#records = join(this.root, "records");
    this.#wireProxy = join(this.root, "wire-proxy.mjs");
    mkdirSync(this.workspace);
    mkdirSync(this.#records);
    writeFileSync(this.#wireProxy, WIRE_PROXY_SOURCE);
  }

  /**
   * Writes the configuration file; `workspaceRoot` defaults to the sandbox's workspace and
   * `policy.sandbox` to "optional" (see {@link RunOptions.isolated}).
   */
  writeConfig(config: Record<string, unknown>): void {
    const policy = { sandbox: "optional", ...(config.policy as Record<string, unknown> | undefined) };
    writeFileSync(
      this.configPath,
      JSON.stringify({ workspaceRoot: "workspace", ...config, policy }, null, 2),
    );
  }

  /** The record file of the server configured under `server`. */
  recordFile(server: string): string {
    return join(this.#records, `${server}.log`);
  }

  /** What the server configured under `server` recorded so far (`started`, `wire`, `cancelled`, ...). */
  records(server: string): ServerRecord[] {
    return readRecordFile(this.recordFile(server));
  }

  /** The `wire` records of one method: the messages the server received. */
  received(server: string, method: string): ServerRecord[] {
    return this.records(server).filter((record) => record.event === "wire" && record.method === method);
  }

  /** A stdio entry for the scriptable test server, recording to `recordFile(server)`. */
  scriptableServer(server: string, options: ScriptableServerOptions = {}): ServerEntry {
    const tools = options.tools ?? [];
    return this.#entry(server, scriptableServerPath(), options, {
      MCP_TESTING_TOOLS: typeof tools === "string" ? tools : JSON.stringify(tools),
    });
  }

  /** A stdio entry for one of the misbehaving test servers. */
  misbehavingServer(
    server: string,
    kind: MisbehavingServerName,
    options: TestServerOptions = {},
  ): ServerEntry {
    return this.#entry(server, misbehavingServerPath(kind), options, {});
  }

  /** A stdio entry for a server whose tool `name` answers with `results[name]`, a whole `CallToolResult`. */
  resultServer(
    server: string,
    results: Record<string, unknown>,
    options: TestServerOptions = {},
  ): ServerEntry {
    return this.#entry(server, RESULT_SERVER, options, { MCP_TESTING_RESULTS: JSON.stringify(results) });
  }

  /** A stdio entry for the real `server-everything`. */
  everythingServer(server: string, options: TestServerOptions = {}): ServerEntry {
    return this.#entry(server, EVERYTHING_SERVER, options, {}, ["stdio"]);
  }

  #entry(
    server: string,
    script: string,
    options: TestServerOptions,
    env: Record<string, string>,
    extraArgs: string[] = [],
  ): ServerEntry {
    const recordFile = this.recordFile(server);
    const args = options.wire ? [this.#wireProxy, script, ...extraArgs] : [script, ...extraArgs];
    return {
      command: process.execPath,
      args,
      env: { MCP_TESTING_RECORD_FILE: recordFile, ...env, ...options.env },
      // Under the sandbox the records directory (in the hidden home) is all a test server may write.
      sandbox: { write: [this.#records] },
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
  }

  /** Runs `agent --config … --state-dir … <args>` to completion. */
  run(args: string[], options: RunOptions = {}): Promise<AgentResult> {
    return this.start(args, options).exited;
  }

  /** Starts `agent --config … --state-dir … <args>` and returns at once. */
  start(args: string[], options: RunOptions = {}): RunningAgent {
    const argv = options.bare
      ? [CLI_BIN, ...args]
      : [CLI_BIN, "--config", this.configPath, "--state-dir", this.stateDir, ...args];
    // -e: exit with the command's code; -f: flush at once; -q: no banner; the log goes nowhere.
    // `exec`: the shell script starts must not stay as the CLI's parent, or a Ctrl-C typed at the
    // terminal reaches it too and it reports 130 for a CLI that went on and exited 0 (dash does).
    const [command, commandArgs] = options.terminal
      ? [
          "/usr/bin/script",
          ["-qfec", `exec ${[process.execPath, ...argv].map(shellQuote).join(" ")}`, "/dev/null"],
        ]
      : [process.execPath, argv];
    const child = spawn(command, commandArgs, {
      cwd: options.cwd ?? this.root,
      // Only what a user's shell would surely have, so nothing of the test runner leaks in.
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: this.root,
        ...((options.isolated ?? BWRAP_AVAILABLE) ? {} : { AGENT_BWRAP: join(this.root, "no-bwrap-here") }),
        ...options.env,
      },
      stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    this.#children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const limitMs = options.limitMs ?? RUN_LIMIT_MS;
    const exited = new Promise<AgentResult>((resolve, reject) => {
      const limit = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`agent ${args.join(" ")} did not exit within ${limitMs} ms:\n${stderr}`));
      }, limitMs);
      child.on("error", (error) => {
        clearTimeout(limit);
        reject(error);
      });
      // "close", not "exit": the output streams are complete by then.
      child.on("close", (code, signal) => {
        clearTimeout(limit);
        this.#children.delete(child);
        resolve({ code, signal, stdout, stderr });
      });
    });
    if (child.pid === undefined) throw new Error("the agent process did not start");
    return { child, pid: child.pid, stdout: () => stdout, stderr: () => stderr, exited };
  }

  /** The audit trail as written, one parsed event per line. */
  auditEvents(): Record<string, unknown>[] {
    const file = join(this.stateDir, "audit.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /**
   * Fails if a CLI process, a server process that recorded `started` (on the host) or any process
   * mentioning this test's directory (a sandbox) is still alive, killing them first so one failure
   * does not leak into the next test; then removes the directory.
   */
  async cleanup(): Promise<void> {
    const problems: string[] = [];
    for (const child of this.#children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        problems.push(`agent process ${child.pid} was still running`);
      }
    }
    try {
      await assertNothingLeftBehind(this.root, this.#records, 3_000);
    } catch (error) {
      problems.push((error as Error).message);
    }
    rmSync(this.root, { recursive: true, force: true });
    if (problems.length > 0) throw new Error(problems.join("\n"));
  }
}

/**
 * `test` with a fresh {@link E2eSandbox} per test (cleaned up, and checked for leftover processes,
 * afterwards), so tests can run concurrently: most of an end-to-end test is waiting on processes.
 */
export const e2eTest = test.extend<{ sandbox: E2eSandbox }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest requires fixtures to destructure their context.
  sandbox: async ({}, use) => {
    const sandbox = new E2eSandbox();
    try {
      await use(sandbox);
    } finally {
      await sandbox.cleanup();
    }
  },
});

/** Polls `probe` until it returns a value other than `undefined`/`false`; rejects after `timeoutMs`. */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${description}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Parses stdout that must be exactly one JSON document on one line, and nothing else. */
export function parseSingleJson(stdout: string): Record<string, unknown> {
  if (!stdout.endsWith("\n") || stdout.indexOf("\n") !== stdout.length - 1) {
    throw new Error(`stdout is not exactly one line of JSON:\n${stdout}`);
  }
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** The ids a held call's `--json` output carries. */
export function waitingIds(stdout: string): { runId: string; requestId: string } {
  const document = parseSingleJson(stdout);
  if (document.type !== "waiting") throw new Error(`expected a waiting outcome, got:\n${stdout}`);
  return { runId: String(document.runId), requestId: String(document.requestId) };
}

/** The `observation` of a `--json` call or resume. */
export function observationOf(stdout: string): Record<string, unknown> {
  const document = parseSingleJson(stdout);
  if (document.type !== "observation") throw new Error(`expected an observation, got:\n${stdout}`);
  return document.observation as Record<string, unknown>;
}

/** The first text block of an MCP tool's output. */
export function firstText(observation: Record<string, unknown>): string {
  const output = observation.output as { content?: { type: string; text?: string }[] } | undefined;
  const block = output?.content?.find((item) => item.type === "text");
  if (block?.text === undefined) throw new Error(`no text block in ${JSON.stringify(observation)}`);
  return block.text;
}

// A stdio pass-through in front of a test server: records every line the client sends (so a test
// sees exactly what reached the server, e.g. `notifications/cancelled`), then forwards it. The
// server's stdout and stderr go straight to the client. It stays in the server's process group.
const WIRE_PROXY_SOURCE = `
import { spawn } from "node:child_process";
import { appendFileSync, readlinkSync } from "node:fs";
import { createInterface } from "node:readline";

// From the environment, not an argument: an argument naming a file is a launch file, kept read-only.
const recordFile = process.env.MCP_TESTING_RECORD_FILE;
const command = process.argv.slice(2);
const pidNamespace = readlinkSync("/proc/self/ns/pid");
const record = (fields) =>
  appendFileSync(recordFile, "mcp-testing " + JSON.stringify({ ...fields, pidNamespace }) + "\\n");
const server = spawn(process.execPath, command, { stdio: ["pipe", "inherit", "inherit"] });
record({ event: "started", pid: process.pid, server: "wire-proxy" });
server.stdin.on("error", () => {});
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let message = {};
  try {
    message = JSON.parse(line);
  } catch {}
  record({ event: "wire", method: message.method, id: message.id, params: message.params });
  server.stdin.write(line + "\\n");
});
lines.on("close", () => server.stdin.end());
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;
