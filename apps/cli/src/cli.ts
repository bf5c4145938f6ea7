import { messageOf } from "@agent/base";
import { LoopError } from "@agent/loop";
import { ModelClientError } from "@agent/models";
import { PolicyError } from "@agent/policy";
import { StorePostgresError } from "@agent/store-postgres";
import { chatCommand } from "./chat/chat.js";
import { type CliArgs, parseCliArgs } from "./cli-args.js";
import { cliVersion } from "./cli-version.js";
import { groupHelp, helpFor, usageText } from "./command-help.js";
import {
  announceConfigFile,
  type CommandScope,
  configFileToEdit,
  withConfigured,
  withRuntime,
  withState,
} from "./command-scopes.js";
import { approvalsDecideCommand, approvalsListCommand } from "./commands/approvals.js";
import { approvalsShowCommand } from "./commands/approvals-show.js";
import { auditCommand } from "./commands/audit.js";
import { callCommand } from "./commands/call.js";
import {
  promptsGetCommand,
  promptsListCommand,
  resourcesListCommand,
  resourcesReadCommand,
} from "./commands/catalog.js";
import { configShowCommand } from "./commands/config-show.js";
import { mcpAddCommand, mcpGetCommand, mcpRemoveCommand } from "./commands/mcp-edit.js";
import { mcpListCommand } from "./commands/mcp-list.js";
import { mcpLoginCommand, mcpLogoutCommand } from "./commands/mcp-login.js";
import { mcpRefreshCommand } from "./commands/mcp-refresh.js";
import { resumeCommand } from "./commands/resume.js";
import { continueRunCommand, runCommand } from "./commands/run.js";
import { runsListCommand, runsShowCommand } from "./commands/runs.js";
import { serveCommand } from "./commands/serve.js";
import { toolsCommand } from "./commands/tools.js";
import { ConfigError } from "./config/index.js";
import { CliExit, EXIT_CODES, type ExitCode, interruptionExitCode } from "./exit-codes.js";
import { openPackageCache } from "./runtime/runtime.js";
import { createServerProcesses, type ServerProcesses } from "./runtime/server-connections.js";
import { StateError } from "./state/index.js";
import { agentCommand, type CliIo, safeText, writeLine } from "./terminal/io.js";
import { createOutputGuard } from "./terminal/output-guard.js";
import { createTurnInterrupts, type TurnInterrupts } from "./terminal/turn-interrupts.js";

/**
 * Runs one `agent` command line and returns its exit code. `signal` stops it as Ctrl-C does (exit
 * 130, or 143 when its reason is an `Interrupted` by SIGTERM). Servers and state are always closed
 * before it returns, whatever happened. The stdio servers it starts are recorded in `processes`,
 * which the caller keeps to kill them when it cannot wait for that close. A command that runs turns
 * (`agent chat`) may claim Ctrl-C through `interrupts` while one runs, so it cancels only that turn.
 */
export async function runCli(
  argv: string[],
  baseIo: CliIo,
  signal: AbortSignal,
  processes: ServerProcesses = createServerProcesses(),
  interrupts: TurnInterrupts = createTurnInterrupts(),
): Promise<ExitCode> {
  // Every write of this command, error messages included, passes the configuration's redactor.
  const guard = createOutputGuard(baseIo);
  const io = guard.io;
  try {
    const args = parseCliArgs(argv);
    const agent = agentCommand(io);
    if (args.command === "help") {
      writeLine(io.stdout, helpFor(args.operands, agent));
      return EXIT_CODES.ok;
    }
    if (args.command === "usage") {
      const [group] = args.operands;
      writeLine(io.stderr, group === undefined ? usageText(agent) : groupHelp(group, agent));
      return EXIT_CODES.usage;
    }
    if (args.command === "version") {
      writeLine(io.stdout, cliVersion());
      return EXIT_CODES.ok;
    }
    const code = await dispatch(args, { guard, signal, processes, interrupts });
    return signal.aborted ? interruptionExitCode(signal.reason) : code;
  } catch (error) {
    if (signal.aborted) return interruptionExitCode(signal.reason);
    const { exitCode, message } = describeFailure(error, agentCommand(io));
    // Messages may quote a server, a file or an argument: nothing in them may drive the terminal.
    writeLine(io.stderr, `agent: ${safeText(message)}`);
    return exitCode;
  }
}

async function dispatch(args: CliArgs, scope: CommandScope): Promise<ExitCode> {
  const { guard, signal } = scope;
  const { io } = guard;
  switch (args.command) {
    case "approvals list":
      return withState(args, guard, (runtime) => approvalsListCommand(runtime, io, args));
    case "approvals show":
      return withState(args, guard, (runtime) =>
        approvalsShowCommand(runtime, io, { id: operand(args), json: args.json }),
      );
    case "approvals approve":
    case "approvals deny": {
      const decision = args.command === "approvals approve" ? "approve" : "deny";
      return withState(args, guard, (runtime) =>
        approvalsDecideCommand(runtime, io, { id: operand(args), decision, reason: args.denyReason }),
      );
    }
    case "audit":
      return withState(args, guard, (runtime) => auditCommand(runtime.auditSource, io, args, signal));
    case "mcp list":
      return withRuntime(args, scope, (runtime) => mcpListCommand(runtime, io, args, signal));
    case "mcp login":
      return withConfigured(args, guard, (configured) =>
        mcpLoginCommand(configured, io, { server: operand(args) }, signal),
      );
    case "mcp add":
      return mcpAddCommand(configFileToEdit(args, io), io, {
        name: operand(args),
        target: args.operands.slice(1),
        ...args.serverEntry,
      });
    case "mcp remove":
      return mcpRemoveCommand(configFileToEdit(args, io), io, operand(args));
    case "mcp get":
      // Through the loaded configuration's redactor: a literal secret in the entry is not shown.
      return withConfigured(args, guard, async (configured) =>
        mcpGetCommand(configured.config.file, io, operand(args)),
      );
    case "mcp refresh":
      return withConfigured(args, guard, (configured) =>
        mcpRefreshCommand(
          { ...configured, packages: openPackageCache(configured, io) },
          io,
          { servers: args.operands, json: args.json },
          signal,
        ),
      );
    case "mcp logout":
      return withState(args, guard, (runtime) => mcpLogoutCommand(runtime, io, { server: operand(args) }));
    case "tools":
      return withRuntime(args, scope, (runtime) => toolsCommand(runtime, io, args, signal));
    case "call":
      return withRuntime(args, scope, (runtime) =>
        callCommand(runtime, io, { toolName: operand(args), input: args.input, json: args.json }, signal),
      );
    case "resume":
      return withRuntime(args, scope, (runtime) =>
        resumeCommand(
          runtime,
          io,
          { runId: operand(args), json: args.json, unknownOutcomes: args.unknownOutcomes },
          signal,
        ),
      );
    case "run":
      if (args.continueRunId !== undefined) {
        const runId = args.continueRunId;
        return withRuntime(args, scope, (runtime) =>
          continueRunCommand(
            runtime,
            io,
            { runId, prompt: operand(args), json: args.json, maxTurns: args.maxTurns },
            signal,
          ),
        );
      }
      return withRuntime(args, scope, (runtime) =>
        runCommand(
          runtime,
          io,
          {
            prompt: args.operands[0],
            fromPrompt: args.fromPrompt,
            promptArgs: args.promptArgs,
            attach: args.attach,
            json: args.json,
            maxTurns: args.maxTurns,
          },
          signal,
        ),
      );
    case "chat":
      return withRuntime(args, scope, (runtime) =>
        chatCommand(runtime, io, { maxTurns: args.maxTurns }, signal, scope.interrupts),
      );
    case "serve":
      announceConfigFile(args, io);
      return serveCommand(args, io, signal);
    case "runs list":
      return withState(args, guard, (runtime) => runsListCommand(runtime, io, args));
    case "runs show":
      return withState(args, guard, (runtime) =>
        runsShowCommand(runtime, io, { runId: operand(args), json: args.json }),
      );
    case "resources list":
      return withRuntime(args, scope, (runtime) =>
        resourcesListCommand(runtime, io, { server: args.operands[0], json: args.json }, signal),
      );
    case "resources read":
      return withRuntime(args, scope, (runtime) =>
        resourcesReadCommand(
          runtime,
          io,
          { server: operand(args), uri: args.operands[1] ?? "", json: args.json },
          signal,
        ),
      );
    case "prompts list":
      return withRuntime(args, scope, (runtime) =>
        promptsListCommand(runtime, io, { json: args.json }, signal),
      );
    case "prompts get":
      return withRuntime(args, scope, (runtime) =>
        promptsGetCommand(
          runtime,
          io,
          { server: operand(args), name: args.operands[1] ?? "", args: args.promptArgs, json: args.json },
          signal,
        ),
      );
    case "config show":
      return configShowCommand(guard, { config: args.config, json: args.json });
    case "help":
    case "usage":
    case "version":
      return EXIT_CODES.ok;
  }
}

function operand(args: CliArgs): string {
  return args.operands[0] ?? "";
}

function describeFailure(error: unknown, agent: string): { exitCode: ExitCode; message: string } {
  if (error instanceof CliExit) return { exitCode: error.exitCode, message: error.messageFor(agent) };
  if (ConfigError.isInstance(error) || StateError.isInstance(error) || StorePostgresError.isInstance(error)) {
    return { exitCode: EXIT_CODES.usage, message: `${error.message} [${error.code}]` };
  }
  if (PolicyError.isInstance(error) || LoopError.isInstance(error) || ModelClientError.isInstance(error))
    return { exitCode: EXIT_CODES.usage, message: `${error.message} [${error.code}]` };
  return {
    exitCode: EXIT_CODES.failed,
    message: `unexpected error: ${messageOf(error)}`,
  };
}
