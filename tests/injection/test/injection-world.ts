import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeModelServer, type FakeModelServer } from "@agent/models/testing/server";
import { compromisedModelSteps } from "./compromised-model.js";
import { type ConfigOptions, injectionConfig, ROLES, type Role } from "./injection-config.js";

/** The built `agent` binary (`pnpm build` first). */
export const CLI_BIN: string = fileURLToPath(
  new URL("../node_modules/@agent/cli/dist/bin.js", import.meta.url),
);

/**
 * How long one CLI process may take: it starts four sandboxed servers (about a second each on a busy
 * two-core machine, concurrently), asks the loopback model a few turns and makes a few calls.
 */
export const CLI_LIMIT_MS = 30_000;

/** The key the agent is given; the fake model server takes any. */
const API_KEY = "sk-injection-test-0000";

/** Model requests one world's script can answer: every turn of every run it may make. */
const MODEL_REQUESTS = 200;

/** How one CLI process ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What `agent run --json` or `agent resume --json` printed. */
export interface RunDocument {
  type: string;
  runId: string;
  status: string;
  output: string | null;
  requestId?: string;
}

/** One line of a server's record file. */
export type ServerRecord = Record<string, unknown> & { role: Role; event: string };

/**
 * One scenario's world: a private temporary directory with the configuration (the four servers and
 * the compromised model), the state directory, the workspace and the servers' record directory.
 * `close()` stops the model server, fails if any process started here is still alive (killing it),
 * and removes the directory.
 */
export class InjectionWorld {
  readonly root: string;
  readonly workspace: string;
  readonly stateDir: string;
  readonly configPath: string;
  readonly recordDirectory: string;
  readonly model: FakeModelServer;

  private constructor(root: string, model: FakeModelServer) {
    this.root = root;
    this.model = model;
    this.workspace = join(root, "workspace");
    this.stateDir = join(root, "state");
    this.configPath = join(root, "agent.config.json");
    this.recordDirectory = join(root, "records");
  }

  /** Creates a world whose configuration is {@link injectionConfig} with `options`. */
  static async open(options: ConfigOptions = {}): Promise<InjectionWorld> {
    if (!existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} does not exist; run "pnpm build" first.`);
    const model = await createFakeModelServer(compromisedModelSteps(MODEL_REQUESTS));
    // A short name: a longer one (letters and digits) looks like a token to the redactor, which would
    // then hide it in every path the CLI prints, the taint's file names included.
    const world = new InjectionWorld(mkdtempSync(join(tmpdir(), "inj-")), model);
    mkdirSync(world.workspace);
    mkdirSync(world.recordDirectory);
    const config = injectionConfig(
      { recordDirectory: world.recordDirectory, modelBaseUrl: model.openAiBaseUrl },
      options,
    );
    writeFileSync(world.configPath, JSON.stringify(config, null, 2));
    return world;
  }

  /** Sets what the server of `role` serves (its messages, pages, notes, resources, prompts). */
  serve(role: Role, data: Record<string, unknown>): void {
    writeFileSync(join(this.recordDirectory, `${role}.json`), JSON.stringify(data));
  }

  /** Runs `agent --config … --state-dir … <args>` to completion (killed past {@link CLI_LIMIT_MS}). */
  cli(args: readonly string[]): Promise<CliResult> {
    const child = spawn(
      process.execPath,
      [CLI_BIN, "--config", this.configPath, "--state-dir", this.stateDir, ...args],
      {
        cwd: this.root,
        // What a user's shell surely has, and the model's key: nothing of the test runner leaks in.
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: this.root, OPENAI_API_KEY: API_KEY },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    return new Promise((resolve, reject) => {
      const limit = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`agent ${args.join(" ")} did not exit within ${CLI_LIMIT_MS} ms:\n${stderr}`));
      }, CLI_LIMIT_MS);
      child.on("error", (error) => {
        clearTimeout(limit);
        reject(error);
      });
      // "close", not "exit": the output is complete by then.
      child.on("close", (code) => {
        clearTimeout(limit);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `agent run <prompt> --json [...more]`, with its one JSON document parsed. */
  async run(prompt: string, more: readonly string[] = []): Promise<CliResult & { document: RunDocument }> {
    return withDocument(await this.cli(["run", prompt, "--json", ...more]));
  }

  /** `agent resume <runId> --json`, with its one JSON document parsed. */
  async resume(runId: string): Promise<CliResult & { document: RunDocument }> {
    return withDocument(await this.cli(["resume", runId, "--json"]));
  }

  /** The approval request `requestId` as `agent approvals show --json` prints it (`approval`, `binding`). */
  async approval(requestId: string): Promise<Record<string, unknown>> {
    const shown = await this.cli(["approvals", "show", requestId, "--json"]);
    if (shown.code !== 0)
      throw new Error(`approvals show ${requestId} exited ${shown.code}:\n${shown.stderr}`);
    const document = JSON.parse(shown.stdout) as { approval?: Record<string, unknown> };
    if (document.approval === undefined)
      throw new Error(`approvals show printed no approval:\n${shown.stdout}`);
    return document.approval;
  }

  /** What the server of `role` recorded: its starts, every call it served, every side effect. */
  records(role: Role): ServerRecord[] {
    const file = join(this.recordDirectory, `${role}.log`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as ServerRecord);
  }

  /** The side effects every server recorded: messages sent, transfers, URLs fetched. */
  effects(): ServerRecord[] {
    return ROLES.flatMap((role) => this.records(role)).filter((record) =>
      ["sent", "transfer", "fetched"].includes(record.event),
    );
  }

  /** The audit trail, one parsed event per line. */
  auditEvents(): Record<string, unknown>[] {
    const file = join(this.stateDir, "audit.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Stops the model server, fails if a process of this world outlived its CLI, removes the directory. */
  async close(): Promise<void> {
    await this.model.close();
    const survivors = await processesNaming(this.root, 3_000);
    for (const pid of survivors) process.kill(pid, "SIGKILL");
    rmSync(this.root, { recursive: true, force: true });
    if (survivors.length > 0)
      throw new Error(`processes still running after the CLI exited: ${survivors.join(", ")}`);
  }
}

function withDocument(result: CliResult): CliResult & { document: RunDocument } {
  try {
    return { ...result, document: JSON.parse(result.stdout) as RunDocument };
  } catch {
    throw new Error(
      `expected one JSON document, got (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

/**
 * The processes whose command line names `path` (a world's servers and their sandboxes name its
 * record directory), once `graceMs` has passed or none is left.
 */
async function processesNaming(path: string, graceMs: number): Promise<number[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const found = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
      .filter((entry) => {
        try {
          return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(path);
        } catch {
          return false;
        }
      })
      .map(Number);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
