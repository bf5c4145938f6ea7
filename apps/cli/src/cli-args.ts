import { parseArgs } from "node:util";
import { COMMAND_OPTIONS, type CommandName, OPERANDS, readCommand } from "./cli-commands.js";
import { type CliOptions, readOptions } from "./cli-option-values.js";
import { checkOption, GLOBAL_OPTIONS, OPTIONS, type OptionValues } from "./cli-options.js";
import { usageError } from "./exit-codes.js";

/** A parsed command line. */
export interface CliArgs extends CliOptions {
  command: CommandName;
  /** Positional arguments after the command words (a tool name, an id). */
  operands: string[];
}

/** Parses argv (without node and the script); throws a usage error (exit 2) on anything unexpected. */
export function parseCliArgs(argv: string[]): CliArgs {
  // Not strict: Node's own messages name its API ("Unknown option '--x'. To specify a positional
  // argument starting with a '-', place it at the end of the command after '--'"); we check the
  // tokens ourselves and say it in one line.
  const {
    values: parsedValues,
    positionals,
    tokens,
  } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) if (token.kind === "option") checkOption(token);
  const values = parsedValues as OptionValues;
  if (values.version) return { ...readOptions(values), command: "version", operands: [] };
  if (positionals.length === 0 && !values.help)
    return { ...readOptions(values), command: "usage", operands: [] };
  // `agent <command> --help`: that command's help, whatever else the line holds.
  if (values.help) return { ...readOptions(values), command: "help", operands: positionals };
  const [command, operands] = readCommand(positionals);
  for (const option of Object.keys(OPTIONS) as (keyof typeof OPTIONS)[]) {
    if (GLOBAL_OPTIONS.includes(option)) continue;
    if (values[option] !== undefined && !COMMAND_OPTIONS[command].includes(option)) {
      throw usageError(`"agent ${command}" does not take --${option}.`);
    }
  }
  const expected = OPERANDS[command];
  const required = expected.filter((operand) => !operand.startsWith("["));
  const variadic = expected.at(-1)?.endsWith("...]") === true;
  if (operands.length < required.length || (!variadic && operands.length > expected.length)) {
    throw usageError(
      `"agent ${command}" takes ${expected.length ? expected.join(" ") : "no arguments"}, got ${operands.length}.`,
    );
  }
  if (command === "run" && values.continue !== undefined) checkContinue(values, operands);
  if (command === "run" && operands.length === 0 && values.prompt === undefined) {
    throw usageError(`"agent run" takes <prompt>, or --prompt <server>:<name> to start from an MCP prompt.`);
  }
  if (values.arg !== undefined && command === "run" && values.prompt === undefined) {
    throw usageError(`--arg gives the arguments of --prompt; "agent run" got --arg without --prompt.`);
  }
  return { ...readOptions(values), command, operands };
}

/** `run --continue <runId>` takes a prompt of its own, and neither `--prompt` nor `--attach`. */
function checkContinue(values: OptionValues, operands: readonly string[]): void {
  if (values.prompt !== undefined || values.attach !== undefined) {
    throw usageError(
      `"agent run --continue" takes a prompt to add to the run; --prompt and --attach start a new one.`,
    );
  }
  if (operands.length === 0 || operands[0]?.trim() === "") {
    throw usageError(`"agent run --continue <runId>" takes <prompt>: the new message for the run.`);
  }
}
