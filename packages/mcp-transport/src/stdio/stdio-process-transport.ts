import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";
import { escapeControlCharacters } from "../escape-control-characters.js";
import type { McpCloseReason } from "../transport.js";
import { ByteRingBuffer } from "./byte-ring-buffer.js";
import { LineFramer } from "./line-framer.js";
import { parseMessage } from "./parse-message.js";
import { describeExit, signalProcessGroup } from "./process-group.js";
import {
  assertParameters,
  describeLaunchFailure,
  describeSpawnFailure,
  type StdioLaunchPlan,
  type StdioLaunchSpec,
  type StdioServerParameters,
} from "./stdio-launch.js";

/** The last step `close()` needed to end the server. */
export type CloseEscalation = "none" | "stdin" | "sigterm" | "sigkill";

/** What a stdio connection observed, for diagnostics; text is escaped and bounded. */
export interface StdioDiagnostics {
  pid: number | undefined;
  /** Null while running, or when the process ended by a signal. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  closeEscalation: CloseEscalation;
  /** Stdout lines that were not JSON-RPC messages (banners, logs, garbage). */
  skippedLines: number;
  /** The first few skipped lines, truncated and escaped. */
  skippedLineSamples: string[];
  /** Total stderr bytes seen, including those no longer kept. */
  stderrBytes: number;
}

const DEFAULT_STDERR_BUFFER_BYTES = 64 * 1024;
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 3000;
// How long to wait, after the server exits, for the messages it wrote just before.
const STDOUT_DRAIN_MS = 200;
const MAX_SAMPLES = 5;
const MAX_SAMPLE_CHARACTERS = 200;
// Requests of one tick held back before they are written together: enough to keep the system calls
// few, few enough that the server starts on the first ones while later ones are still being made.
const MAX_HELD_MESSAGES = 16;

/**
 * An SDK `Transport` over a child process speaking newline-delimited JSON-RPC. Unlike the SDK's
 * `StdioClientTransport` it gives the server its own process group (so `close()` reaches
 * grandchildren), caps message size, keeps stderr in a bounded buffer and explains every close.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** The close bound in milliseconds, after defaults. */
  readonly closeTimeoutMs: number;
  private readonly maxMessageBytes: number;
  private readonly stderr: ByteRingBuffer;
  private readonly framer: LineFramer;
  private child: ChildProcessWithoutNullStreams | undefined;
  private reason: McpCloseReason | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private readonly stdoutDone: Promise<void>;
  private markStdoutDone!: () => void;
  private clientClosing = false;
  private starting = false;
  private teardownPromise: Promise<void> | undefined;
  private escalation: CloseEscalation = "none";
  private skippedLines = 0;
  /** Whether a message went out in this tick: later ones of the tick are then batched (see send). */
  private sentThisTick = false;
  /** Messages of this tick held back since the last write (see send). */
  private heldThisTick = 0;
  private readonly samples: string[] = [];
  private dispose: (() => Promise<void>) | undefined;
  private disposed: Promise<void> | undefined;

  constructor(private readonly parameters: StdioServerParameters) {
    assertParameters(parameters);
    this.closeTimeoutMs = parameters.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.maxMessageBytes = parameters.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.stderr = new ByteRingBuffer(parameters.stderrBufferBytes ?? DEFAULT_STDERR_BUFFER_BYTES);
    this.framer = new LineFramer({
      maxLineBytes: this.maxMessageBytes,
      onLine: (line) => this.handleLine(line),
      onOverflow: (bytes) =>
        this.endConnection({
          kind: "protocol",
          message: `the server sent a message of more than ${this.maxMessageBytes} bytes (maxMessageBytes; at least ${bytes} seen without a newline)`,
        }),
    });
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
    this.stdoutDone = new Promise((resolve) => {
      this.markStdoutDone = resolve;
    });
  }

  /** The server's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the connection ended; undefined while it is open. */
  get closeReason(): McpCloseReason | undefined {
    return this.reason;
  }

  /** The last bytes the server wrote to stderr, with control characters escaped. */
  stderrTail(): string {
    return escapeControlCharacters(this.stderr.toString());
  }

  /** A snapshot of what this connection observed. */
  diagnostics(): StdioDiagnostics {
    return {
      pid: this.child?.pid,
      exitCode: this.exit?.code ?? null,
      exitSignal: this.exit?.signal ?? null,
      closeEscalation: this.escalation,
      skippedLines: this.skippedLines,
      skippedLineSamples: [...this.samples],
      stderrBytes: this.stderr.totalBytes,
    };
  }

  async start(): Promise<void> {
    if (this.child || this.reason || this.starting) {
      throw new Error("StdioProcessTransport can be started only once.");
    }
    this.starting = true;
    const { command } = this.parameters;
    let plan: StdioLaunchPlan;
    try {
      plan = await this.plan();
    } catch (error) {
      // Refused before anything ran (e.g. a required sandbox is unavailable): nothing is spawned.
      throw this.startFailed(describeLaunchFailure(command, error), error);
    }
    this.dispose = plan.dispose;
    if (this.clientClosing) {
      throw this.startFailed(
        `could not start the server "${escapeControlCharacters(command)}": closed before it started`,
        new Error("The transport was closed before the server started."),
      );
    }
    await new Promise<void>((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(plan.command, [...plan.args], {
          cwd: plan.cwd,
          env: { ...plan.env },
          stdio: ["pipe", "pipe", "pipe"],
          // Its own process group, so one signal reaches the server and everything it started.
          detached: process.platform !== "win32",
          shell: false,
          windowsHide: true,
        });
      } catch (error) {
        reject(this.startFailed(describeSpawnFailure(command, error), error));
        return;
      }
      this.child = child;
      child.once("spawn", () => resolve());
      child.on("error", (error) => {
        if (child.pid === undefined) reject(this.startFailed(describeSpawnFailure(command, error), error));
        else this.onerror?.(error);
      });
      child.once("exit", (code, signal) => this.handleExit(code, signal));
      child.stdin.on("error", (error: NodeJS.ErrnoException) => {
        // A server that exits while we write is reported by its exit, not by a broken pipe.
        if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") this.onerror?.(error);
      });
      // Both outputs are always read, so a chatty server can never block on a full pipe.
      child.stdout.on("data", (chunk: Buffer) => this.framer.push(chunk));
      child.stdout.on("error", () => {});
      child.stdout.once("close", () => this.markStdoutDone());
      child.stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
      child.stderr.on("error", () => {});
    });
  }

  /** Ends a connection whose process never ran, releases the launch, and returns `error` to throw. */
  private startFailed(message: string, error: unknown): unknown {
    this.markExited();
    this.markStdoutDone();
    this.endConnection({ kind: "exited", message });
    void this.release();
    return error;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.reason || this.clientClosing || !stdin.writable) {
      return Promise.reject(new Error("Not connected"));
    }
    // The first message of a tick is written at once; the others of that tick are held and leave
    // together in one writev when the tick ends or MAX_HELD_MESSAGES are held: 100 concurrent calls
    // cost 8 system calls, not 100, the server is not left idle until the last of them is made, and
    // a lone request (a sequential caller) waits for nothing.
    if (this.sentThisTick) {
      if (stdin.writableCorked === 0) stdin.cork();
      this.heldThisTick += 1;
    } else {
      this.sentThisTick = true;
      process.nextTick(this.endTick);
    }
    const sent = new Promise<void>((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
    if (this.heldThisTick >= MAX_HELD_MESSAGES) {
      this.heldThisTick = 0;
      stdin.uncork();
    }
    return sent;
  }

  // An arrow, so that send() schedules the same function every time without binding one.
  private readonly endTick = (): void => {
    this.sentThisTick = false;
    this.heldThisTick = 0;
    const stdin = this.child?.stdin;
    if (stdin && stdin.writableCorked > 0) stdin.uncork();
  };

  /** Ends the server: stdin closed, then SIGTERM, then SIGKILL to its process group; resolves within the bound. */
  async close(): Promise<void> {
    this.clientClosing = true;
    await this.teardown();
    this.endConnection({
      kind: "client",
      message: `closed by the client; the server ${this.describeShutdown()}`,
    });
  }

  private async plan(): Promise<StdioLaunchPlan> {
    const spec: StdioLaunchSpec = {
      command: this.parameters.command,
      args: [...(this.parameters.args ?? [])],
      env: { ...getDefaultEnvironment(), ...this.parameters.env },
      cwd: this.parameters.cwd,
    };
    return this.parameters.launch ? await this.parameters.launch(spec) : spec;
  }

  /** Runs the launch plan's `dispose` once, after the process is gone; its failure is reported, not thrown. */
  private release(): Promise<void> {
    this.disposed ??= Promise.resolve()
      .then(() => this.dispose?.())
      .catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
    return this.disposed;
  }

  private handleLine(line: Buffer): void {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    const message = parseMessage(text);
    if (!message) {
      this.skip(text);
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private skip(text: string): void {
    this.skippedLines += 1;
    if (this.samples.length < MAX_SAMPLES) {
      this.samples.push(escapeControlCharacters(text.slice(0, MAX_SAMPLE_CHARACTERS)));
    }
  }

  private handleExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    this.markExited();
    // Whatever the server left in its group is orphaned now; reap it while the group id is still ours.
    const pid = this.child?.pid;
    if (pid !== undefined) signalProcessGroup(pid, "SIGKILL");
    void this.release();
    if (this.clientClosing || this.reason) return;
    void Promise.race([this.stdoutDone, delay(STDOUT_DRAIN_MS)]).then(() =>
      this.endConnection({ kind: "exited", message: `the server ${describeExit(code, signal)}` }),
    );
  }

  private endConnection(reason: McpCloseReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.framer.stop();
    this.onclose?.();
    // Nobody may ever call close() after the server broke the connection; don't leave it running.
    if (!this.clientClosing) void this.teardown();
  }

  private teardown(): Promise<void> {
    this.teardownPromise ??= this.runTeardown();
    return this.teardownPromise;
  }

  private async runTeardown(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child && pid !== undefined && !this.exit) {
      const graceMs = this.closeTimeoutMs * 0.4;
      this.escalation = "stdin";
      child.stdin.end();
      if (!(await this.waitForExit(graceMs))) {
        this.escalation = "sigterm";
        signalProcessGroup(pid, "SIGTERM");
        if (!(await this.waitForExit(graceMs))) {
          this.escalation = "sigkill";
          signalProcessGroup(pid, "SIGKILL");
          if (!(await this.waitForExit(this.closeTimeoutMs - 2 * graceMs))) {
            this.onerror?.(
              new McpTransportError(
                MCP_TRANSPORT_ERROR_CODES.closeFailed,
                `server process ${pid} did not exit within ${this.closeTimeoutMs} ms, even after SIGKILL`,
              ),
            );
          }
        }
      }
    }
    // A descendant that left the process group may still hold the pipes; they must not keep us alive.
    child?.stdin.destroy();
    child?.stdout.destroy();
    child?.stderr.destroy();
    if (this.exit || child?.pid === undefined) await this.release();
  }

  private async waitForExit(ms: number): Promise<boolean> {
    await Promise.race([this.exited, delay(ms)]);
    return this.exit !== undefined;
  }

  private describeShutdown(): string {
    if (!this.exit) return this.child?.pid === undefined ? "never started" : "did not exit";
    const steps: Record<CloseEscalation, string> = {
      none: "",
      stdin: " after stdin was closed",
      sigterm: " after SIGTERM",
      sigkill: " after ignoring SIGTERM",
    };
    return `${describeExit(this.exit.code, this.exit.signal)}${steps[this.escalation]}`;
  }
}

// Only a bound on waiting for the child or its pipes, whose own handles keep the process alive
// while they matter: the timer must not keep an exiting CLI alive after the child is gone.
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
