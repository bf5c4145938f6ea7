import { messageOf } from "@agent/base";
// What starts a stdio server: the parameters, their checks, the launch seam a sandbox rewrites the
// command through, and how a failed start is described.
import { assertNonNegative } from "../assert-argument.js";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";
import { escapeControlCharacters } from "../escape-control-characters.js";

/** The process a stdio server would be started as: what a {@link StdioLaunch} may rewrite. */
export interface StdioLaunchSpec {
  command: string;
  args: string[];
  /** The whole environment the server gets (the safe defaults plus `env`). */
  env: Record<string, string>;
  cwd: string | undefined;
}

/** The process actually spawned, and what to release once it has exited. */
export interface StdioLaunchPlan {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
  /** Called once after the process has exited (or was never spawned); a rejection is reported, not thrown. */
  dispose?: () => Promise<void>;
}

/**
 * Turns the server's command into the one spawned, e.g. the same command inside a sandbox. When it
 * rejects (or throws), nothing is spawned and the connection ends with its message. Async only
 * (issue 27): one shape to implement, also for a launch that knows its plan at once.
 */
export type StdioLaunch = (spec: StdioLaunchSpec) => Promise<StdioLaunchPlan>;

/** How to start a stdio MCP server and the limits its connection keeps. */
export interface StdioServerParameters {
  /** The executable; looked up on the child's `PATH`. No shell is involved. */
  command: string;
  args?: readonly string[];
  /** Added to the SDK's safe defaults (`HOME`, `PATH`, ...); nothing else of this process's environment is passed. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** How much of the server's stderr to keep for diagnostics (default 64 KiB). */
  stderrBufferBytes?: number;
  /** The largest message (one stdout line) accepted; a larger one closes the connection (default 4 MiB). */
  maxMessageBytes?: number;
  /** Upper bound for `close()`: stdin closed, then SIGTERM, then SIGKILL to the process group (default 3000). */
  closeTimeoutMs?: number;
  /** Rewrites the command before it is spawned (a sandbox's seam); by default it is spawned as given. */
  launch?: StdioLaunch;
}

/** Throws {@link McpTransportError} (`invalid_argument`) for parameters no server could be started with. */
export function assertParameters(parameters: StdioServerParameters): void {
  const fail = (message: string): never => {
    throw new McpTransportError(MCP_TRANSPORT_ERROR_CODES.invalidArgument, message);
  };
  if (typeof parameters?.command !== "string" || parameters.command.length === 0) {
    fail("command must be a non-empty string (the executable, without arguments).");
  }
  if (parameters.args !== undefined && !parameters.args.every((arg) => typeof arg === "string")) {
    fail("args must be an array of strings.");
  }
  for (const [name, value] of Object.entries(parameters.env ?? {})) {
    if (typeof value !== "string") fail(`env.${name} must be a string, got ${typeof value}.`);
  }
  for (const name of ["stderrBufferBytes", "maxMessageBytes"] as const) {
    if (parameters[name] !== undefined) assertNonNegative(name, parameters[name], "bytes");
  }
  if (parameters.closeTimeoutMs !== undefined) {
    assertNonNegative("closeTimeoutMs", parameters.closeTimeoutMs, "milliseconds");
  }
  if (parameters.launch !== undefined && typeof parameters.launch !== "function") {
    fail("launch must be a function that returns the command to spawn.");
  }
}

/** Why the launch seam (e.g. a sandbox) refused to produce the command to spawn. */
export function describeLaunchFailure(command: string, error: unknown): string {
  return `could not start the server "${escapeControlCharacters(command)}": ${messageOf(error)}`;
}

/** Why spawning the command failed, with a hint for the usual causes. */
export function describeSpawnFailure(command: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const hint =
    code === "ENOENT"
      ? " (command not found: check the command and the PATH passed in env)"
      : code === "EACCES"
        ? " (not executable)"
        : "";
  return `could not start the server "${escapeControlCharacters(command)}": ${messageOf(error)}${hint}`;
}
