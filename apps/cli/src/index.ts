export { runCli } from "./cli.js";
export { type CliArgs, parseCliArgs } from "./cli-args.js";
export type { CommandName } from "./cli-commands.js";
export { USAGE } from "./command-help.js";
export { CliExit, EXIT_CODES, type ExitCode, Interrupted } from "./exit-codes.js";
export { type CliIo, processIo } from "./terminal/io.js";
