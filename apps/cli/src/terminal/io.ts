import { escapeControlCharacters, type Redactor, redactJson } from "@agent/mcp-transport";
import { DEFAULT_INVOCATION, invocationOf } from "./invocation.js";

/** Where the CLI reads and writes; tests and the binary pass different ones. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The command hints print for this CLI (`agent`, `pnpm agent`, `node apps/cli/dist/bin.js`); default `agent`. */
  readonly invokedAs?: string | undefined;
  /** The configuration's secrets, removed from values before `writeJson` serializes them. */
  readonly redactor?: Redactor | undefined;
}

/** The process's own streams, environment and directory. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    invokedAs: invocationOf(process.argv[1], process.env, process.cwd()),
  };
}

/** The command to print in a hint that tells the user what to run next (see {@link CliIo.invokedAs}). */
export function agentCommand(io: Pick<CliIo, "invokedAs">): string {
  return io.invokedAs ?? DEFAULT_INVOCATION;
}

/** Whether a person is at the terminal: both stdin and stderr are TTYs. */
export function isInteractive(io: CliIo): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/** Colors for one stream: ANSI only on a terminal, and never when NO_COLOR is set. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

/** The {@link Style} for a stream. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  const enabled = Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
  };
}

/** Makes text that came from a server or a file safe for a terminal: control characters are escaped. */
export function safeText(text: string): string {
  return escapeControlCharacters(text);
}

// Everything that ends a line somewhere: newline and tab (kept by safeText), and the Unicode line
// and paragraph separators, which editors, log viewers and some terminals break lines at.
const LINE_BREAKING = /[\n\t\u2028\u2029]/g;
const LINE_BREAKING_ESCAPES: Record<string, string> = Object.freeze({
  "\n": "\\n",
  "\t": "\\t",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
});

/**
 * {@link safeText} for text that must stay on one line (names, error messages, reasons, URLs):
 * newline, tab and the Unicode line separators are escaped too, so no server string can start a
 * line of its own (a forged table row, a fake "ready" server).
 */
export function safeLine(text: string): string {
  return safeText(text).replace(LINE_BREAKING, (character) => LINE_BREAKING_ESCAPES[character] ?? character);
}

/** Writes one line to a stream. */
export function writeLine(stream: NodeJS.WritableStream, line = ""): void {
  stream.write(`${line}\n`);
}

// What JSON.stringify leaves raw but a terminal may act on: DEL, the C1 controls (U+009B is CSI)
// and format characters such as the bidirectional overrides.
const RAW_IN_JSON = /[\u007f-\u009f\p{Cf}]/gu;

/**
 * JSON text of `value` that is safe to print on a terminal and parses to the same value: characters
 * that JSON.stringify leaves raw but a terminal may act on become `\uXXXX` escapes. They can only
 * occur inside strings, where an escape means the same character.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(RAW_IN_JSON, (character) => {
    // One escape per UTF-16 unit: JSON spells a character beyond U+FFFF as a surrogate pair.
    let escaped = "";
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}

/** Writes a value as one line of JSON (what `--json` promises: nothing else on stdout). */
export function writeJson(io: CliIo, value: unknown): void {
  const clean = io.redactor ? redactJson(value, io.redactor) : value;
  io.stdout.write(`${safeJson(clean)}\n`);
}
