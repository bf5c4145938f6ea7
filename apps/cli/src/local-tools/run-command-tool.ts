import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import type { ConfinedProcess, Confinement } from "@agent/policy/bwrap";
import {
  defineTool,
  type EventSink,
  NULL_EVENT_SINK,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  toolFailure,
} from "@agent/tools";
import { z } from "zod";
import { findInlineCode } from "./inline-code.js";
import type { PathGuard } from "./path-guard.js";
import { refusePath } from "./tool-refusal.js";

/** The most bytes of stdout (and, separately, of stderr) one call keeps; the rest is counted, not kept. */
export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;

/** How long a command may run when the call does not say, in milliseconds. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

/** The longest a call may ask a command to run, in milliseconds. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000;

// How long the output pipes may stay open after the command exited.
const PIPE_DRAIN_MS = 500;

const runCommandSchema = z.object({
  command: z.string().min(1).describe("The program to run (a name looked up on PATH, or a path). No shell."),
  args: z.array(z.string()).optional().describe("Its arguments, each passed as is."),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe("The working directory, relative to the workspace root (default: the root)."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_COMMAND_TIMEOUT_MS)
    .optional()
    .describe(`Stop the command after this many milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`),
});

/** What `run_command` returns. */
export interface RunCommandOutput {
  exitCode: number | null;
  signal: string | null;
  /** Whether it was stopped at its timeout. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  /** Whether stdout or stderr had more bytes than were kept. */
  truncated: boolean;
  /** Always `bwrap`: a command never runs unisolated. */
  isolation: "bwrap";
}

/** Options of {@link createRunCommandTool}. */
export interface RunCommandToolOptions {
  /** The workspace's path guard: the working directory must pass it (inside, not protected). */
  guard: PathGuard;
  /** Receives `local_path_refused` for a working directory refused for safety. */
  events?: EventSink;
  /** The sandbox to run in, asked for at each call; when it rejects, the command is not run (never unisolated). */
  confinement: () => Promise<Confinement>;
  /** The environment a command gets (PATH, HOME); nothing else of the agent's environment. */
  env: Readonly<Record<string, string>>;
  /** Whether programs given code in their arguments (`sh -c …`, `node -e …`; see inline-code.ts) may run. */
  allowShell: boolean;
  /** Part of the fingerprint: the network policy commands run under. */
  network: unknown;
}

/**
 * Creates `run_command` (effect `write`): runs one program with arguments, no shell, inside the
 * sandbox (cwd in the workspace, the workspace writable, network as the policy says), with a timeout,
 * stdout and stderr captured up to a cap, and its whole process tree killed on cancellation.
 */
export function createRunCommandTool(
  options: RunCommandToolOptions,
): RegisteredTool<z.infer<typeof runCommandSchema>> {
  const { guard } = options;
  const events = options.events ?? NULL_EVENT_SINK;
  return defineTool({
    name: "run_command",
    description:
      "Run one program with arguments (no shell) in a sandbox: cwd inside the workspace, only the workspace writable, network only as the policy allows. Returns exit code, stdout and stderr (capped).",
    schema: runCommandSchema,
    effect: "write",
    identity: {
      workspaceRoot: guard.workspaceRoot,
      network: JSON.stringify(options.network),
      allowShell: options.allowShell,
    },
    async execute(input, context) {
      const args = input.args ?? [];
      const requested = input.cwd ?? ".";
      const checked = await guard.check(requested);
      if (!checked.ok)
        return refusePath(checked, { toolName: "run_command", path: requested, context, events });
      if (!(await isDirectory(checked.absolute))) {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `${JSON.stringify(checked.relative)} is not a directory.`,
        );
      }
      const inlineCode = options.allowShell
        ? undefined
        : findInlineCode(input.command, args, { cwd: checked.absolute, path: options.env.PATH });
      if (inlineCode !== undefined) {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `${inlineCode} would run code written in its arguments (like a shell with -c, node -e or python -c), which is refused; run a program or a script file with its arguments (or set runCommand.allowShell in the configuration).`,
        );
      }
      const spec = { command: input.command, args, env: { ...options.env }, cwd: checked.absolute };
      let plan: ConfinedProcess;
      try {
        plan = await (await options.confinement()).launch(spec);
      } catch (error) {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `The command was not run: ${(error as Error).message}`,
        );
      }
      try {
        const output = await runBounded(
          plan,
          spec.cwd,
          input.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
          context.signal,
        );
        const result: RunCommandOutput = { ...output, isolation: "bwrap" };
        return result;
      } finally {
        await plan.dispose();
      }
    },
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

type RunOutcome = Omit<RunCommandOutput, "isolation">;

function runBounded(
  plan: { command: string; args: readonly string[]; env: Record<string, string> },
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const child = spawn(plan.command, [...plan.args], {
      cwd,
      env: plan.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: one signal reaches everything it started (in the sandbox: bwrap,
      // whose death ends the whole pid namespace).
      detached: true,
      shell: false,
    });
    const stdout = new HeadCapture(MAX_COMMAND_OUTPUT_BYTES);
    const stderr = new HeadCapture(MAX_COMMAND_OUTPUT_BYTES);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const kill = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = (): void => kill();
    signal.addEventListener("abort", onAbort, { once: true });
    child.once("error", (error) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("exit", (code, exitSignal) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      // Whatever the command left in its group goes with it; a survivor outside the group may still
      // hold the pipes, so their end is awaited only briefly.
      kill();
      const finish = (): void =>
        resolve({
          exitCode: code,
          signal: exitSignal,
          timedOut,
          stdout: stdout.text(),
          stderr: stderr.text(),
          stdoutBytes: stdout.total,
          stderrBytes: stderr.total,
          truncated: stdout.total > stdout.kept || stderr.total > stderr.kept,
        });
      const drained = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_DRAIN_MS);
      child.once("close", () => {
        clearTimeout(drained);
        finish();
      });
    });
  });
}

/** Keeps the first `capacity` bytes of a stream and counts the rest. */
class HeadCapture {
  #chunks: Buffer[] = [];
  kept = 0;
  total = 0;

  constructor(readonly capacity: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.capacity - this.kept;
    if (room <= 0) return;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(Buffer.from(piece));
    this.kept += piece.length;
  }

  /** The kept bytes as UTF-8; a character cut at the cap is dropped. */
  text(): string {
    const text = Buffer.concat(this.#chunks, this.kept).toString("utf8");
    return this.total > this.kept ? text.replace(/\uFFFD+$/, "") : text;
  }
}
