import { safeLine } from "./io.js";

/** What a connection or its snapshot says about a server that is not ready. */
export interface ServerStatus {
  state: string;
  error?: { code: string; message: string } | undefined;
}

/** Why a server is not ready, for one line of human output: `code: message`, else its state; escaped to one line. */
export function describeServerFailure(server: ServerStatus): string {
  return safeLine(server.error ? `${server.error.code}: ${server.error.message}` : server.state);
}

// What names a failure on a line of stderr: an error class or code, a missing module or file, a
// refused or unresolvable connection.
const CAUSE =
  /\b(?:\w*Error\b|Exception\b|Cannot find|not found|No such file|ENOENT|EACCES|EPERM|EROFS|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|Permission denied|Read-only file system|Network is unreachable|name resolution|denied|fatal)/i;
// The frames and fields around a Node or Python error that name nothing: `at …` frames,
// `requireStack: []`, `code: '…'`, braces, the caret under a source line, Node's version footer.
const NOISE =
  /^\s*(?:at\s|requireStack:|code:|errno:|syscall:|path:|[{}[\]]|\^+\s*$|throw\s|node:internal\/|Node\.js v\d|File "|\.\.\. \d+ more)/;

/** At most this many cause lines are shown. */
const MAX_CAUSE_LINES = 4;

/**
 * The lines of a server's stderr that name why it failed (`Error: Cannot find module '…'`, not the
 * `requireStack: []` after it), in order; the last lines that are not noise when none does. Escaped
 * by the caller's `stderrTail`; each is one line.
 */
export function causeLines(stderr: string): string[] {
  const lines = stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !NOISE.test(line));
  const causes = [...new Set(lines.filter((line) => CAUSE.test(line)))];
  // The latest ones: a server that fails after warnings names its failure last.
  return (causes.length > 0 ? causes : lines).slice(-MAX_CAUSE_LINES).map((line) => safeLine(line.trim()));
}

/** The lines under a failed server in human output: its stderr's cause lines, then what the sandbox denied it. */
export function failureDetailLines(details: {
  stderr: readonly string[];
  sandbox: { message: string } | null;
}): string[] {
  return [
    ...details.stderr.map((line) => `stderr: ${line}`),
    ...(details.sandbox ? [`sandbox: ${safeLine(details.sandbox.message)}`] : []),
  ];
}
