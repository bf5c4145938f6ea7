// The options the CLI knows and how their tokens are checked; what each value means is in
// cli-option-values.ts, which commands take which in cli-commands.ts.
import { usageError } from "./exit-codes.js";

/** Every option the CLI knows, as `node:util` parseArgs takes them. */
export const OPTIONS = {
  config: { type: "string" },
  "state-dir": { type: "string" },
  json: { type: "boolean" },
  input: { type: "string" },
  format: { type: "string" },
  follow: { type: "boolean" },
  verify: { type: "boolean" },
  verbose: { type: "boolean" },
  reason: { type: "string" },
  pending: { type: "boolean" },
  transport: { type: "string", short: "t" },
  env: { type: "string", short: "e", multiple: true },
  header: { type: "string", short: "H", multiple: true },
  run: { type: "string" },
  tool: { type: "string" },
  since: { type: "string" },
  tail: { type: "string" },
  "max-turns": { type: "string" },
  continue: { type: "string" },
  arg: { type: "string", multiple: true },
  prompt: { type: "string" },
  attach: { type: "string", multiple: true },
  rerun: { type: "string", multiple: true },
  "answer-unknown": { type: "string", multiple: true },
  port: { type: "string" },
  host: { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "insecure-http": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** Options every command takes. */
export const GLOBAL_OPTIONS: readonly OptionName[] = ["config", "state-dir", "help", "version"];

/** The name of an option, without its dashes. */
export type OptionName = keyof typeof OPTIONS;

/** What parseArgs returns for {@link OPTIONS} once {@link checkOption} has passed every token. */
export type OptionValues = {
  [Name in keyof typeof OPTIONS]?: (typeof OPTIONS)[Name] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[Name]["type"] extends "string"
      ? string
      : boolean;
};

/** An option token as parseArgs reports it in non-strict mode. */
export interface OptionToken {
  name: string;
  rawName: string;
  value?: string | undefined;
  inlineValue?: boolean | undefined;
}

/** Throws a usage error for an unknown option, a value given to a flag, or a missing value. */
export function checkOption(token: OptionToken): void {
  const shown = safeOptionName(token.rawName);
  if (!Object.hasOwn(OPTIONS, token.name)) throw usageError(`Unknown option ${shown}.`);
  const type = OPTIONS[token.name as keyof typeof OPTIONS].type;
  if (type === "boolean" && token.value !== undefined) throw usageError(`${shown} takes no value.`);
  // As Node's strict mode: "--input --json" is a forgotten value, not the value "--json"; "-" (stdin) is a value.
  const optionLike = !token.inlineValue && token.value !== undefined && /^-./.test(token.value);
  if (type === "string" && (token.value === undefined || optionLike)) {
    throw usageError(`${shown} needs a value.`);
  }
}

/** The option as typed, quoted (so a newline in it stays on the line), and cut if it is long. */
function safeOptionName(rawName: string): string {
  return JSON.stringify(rawName.length > 40 ? `${rawName.slice(0, 40)}…` : rawName);
}
