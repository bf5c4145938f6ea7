// How a command's world is opened and closed around it: only the state, the configured state, or the
// connected world (tools, gate, servers); whichever it is, it is closed whatever the command did.
import { dirname, resolve } from "node:path";
import type { Redactor } from "@agent/mcp-transport";
import type { CliArgs } from "./cli-args.js";
import { CONFIG_ENV_VARIABLE, resolveConfigPath } from "./config/index.js";
import { type ConfiguredRuntime, openConfiguredRuntime } from "./runtime/configured-runtime.js";
import { openRuntime, type Runtime } from "./runtime/runtime.js";
import type { ServerProcesses } from "./runtime/server-connections.js";
import { openStateRuntime, type StateRuntime, stateOnlyRedactor } from "./runtime/state-runtime.js";
import { type CliIo, safeLine, writeLine } from "./terminal/io.js";
import type { OutputGuard } from "./terminal/output-guard.js";
import type { TurnInterrupts } from "./terminal/turn-interrupts.js";

/** What every command of one `runCli` shares: its output guard, its stop signal, its server processes. */
export interface CommandScope {
  guard: OutputGuard;
  signal: AbortSignal;
  processes: ServerProcesses;
  interrupts: TurnInterrupts;
}

/** Opens only the state (approvals, runs, audit), after the configuration's redactor guards the output. */
export async function withState<T>(
  args: CliArgs,
  guard: OutputGuard,
  run: (runtime: StateRuntime) => Promise<T>,
): Promise<T> {
  const { io } = guard;
  announceConfigFile(args, io);
  // Before the state opens: without the configuration's secrets nothing stored may be printed.
  guard.protect(stateOnlyRedactor(args, io));
  const runtime = await openStateRuntime(args, io);
  try {
    return await run(runtime);
  } finally {
    await runtime.close();
  }
}

/** The configuration and the state, no tool or server: for commands that read server entries only. */
export function withConfigured<T>(
  args: CliArgs,
  guard: OutputGuard,
  run: (configured: ConfiguredRuntime) => Promise<T>,
): Promise<T> {
  return withOpened(args, guard, () => openConfiguredRuntime(args, guard.io), run);
}

/** The connected world (tools, gate, servers), composed once by `openRuntime`. */
export function withRuntime<T>(
  args: CliArgs,
  { guard, processes }: CommandScope,
  run: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  return withOpened(args, guard, () => openRuntime(args, guard.io, processes), run);
}

// Every output after `open` passes the loaded configuration's redactor; what was opened is closed whatever `run` did.
async function withOpened<Opened extends { redactor: Redactor; close(): Promise<void> }, T>(
  args: CliArgs,
  guard: OutputGuard,
  open: () => Promise<Opened>,
  run: (opened: Opened) => Promise<T>,
): Promise<T> {
  announceConfigFile(args, guard.io);
  const opened = await open();
  guard.protect(opened.redactor);
  try {
    return await run(opened);
  } finally {
    await opened.close();
  }
}

/** A configuration found rather than named by --config: one stderr line says which file it is. */
export function announceConfigFile(args: CliArgs, io: CliIo): void {
  const { path, source, found } = resolveConfigPath({ flag: args.config, env: io.env, cwd: io.cwd });
  // A missing file is reported by the loader, with what to do about it.
  if (source === "flag" || !found) return;
  const above = dirname(path) !== resolve(io.cwd);
  const from = {
    env: CONFIG_ENV_VARIABLE,
    default: above ? "found above the current directory" : "current directory",
    "project-mcp": above
      ? "Claude Code project file, found above the current directory"
      : "Claude Code project file",
  }[source];
  writeLine(io.stderr, `agent: using ${safeLine(path)} (${from})`);
}

/** The file `mcp add` / `mcp remove` edit: the one found as every command finds it (created by `add` if absent). */
export function configFileToEdit(args: CliArgs, io: CliIo): string {
  announceConfigFile(args, io);
  return resolveConfigPath({ flag: args.config, env: io.env, cwd: io.cwd }).path;
}
