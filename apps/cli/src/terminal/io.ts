import { escapeControlCharacters } from "@agent/mcp-transport";

/** Where the CLI reads and writes; tests and the binary pass different ones. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The process's own streams, environment and directory. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
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

/** Writes one line to a stream. */
export function writeLine(stream: NodeJS.WritableStream, line = ""): void {
  stream.write(`${line}\n`);
}

/** Writes a value as one line of JSON (what `--json` promises: nothing else on stdout). */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}
