// What `runCommand.allowShell: false` refuses: a program that would run code written in its own
// arguments (a shell with -c, node -e, python -c, an awk program, ...), named directly, through a
// link, or behind wrappers that run their arguments as a command (env, nice, timeout, xargs, ...).
// What an operator approves is then one program and its arguments, never a script in a string.
// The sandbox stays the boundary: programs that run code from files (make, a script in the
// workspace, a renamed copy of a shell) are not recognized. apps/cli/README.md lists these sets;
// change both together.
import { realpathSync } from "node:fs";
import { basename, resolve } from "node:path";
import { findExecutable } from "@agent/policy/bwrap";

/** Where a command is looked up: its working directory (for `./x`) and the `PATH` it runs with. */
export interface CommandLookup {
  cwd: string;
  path: string | undefined;
}

/** Whether an interpreter, given these arguments, runs code written in them. */
type RunsCode = (args: readonly string[]) => boolean;

const anyArg =
  (...patterns: RegExp[]): RunsCode =>
  (args) =>
    args.some((arg) => patterns.some((pattern) => pattern.test(arg)));
const shortFlagWith = (letters: string): RegExp => new RegExp(`^-[a-zA-Z]*[${letters}][a-zA-Z]*$`);
const SHELL_FLAG = shortFlagWith("c");

// Interpreters and the arguments that hand them code. Every argument after the program is looked
// at, not only its own options: a script's argument that looks like a code flag is refused too,
// since telling them apart needs each interpreter's whole option grammar.
const INTERPRETERS: readonly { name: RegExp; runsCode: RunsCode }[] = [
  {
    name: /^(sh|bash|rbash|dash|ash|zsh|ksh|ksh93|mksh|pdksh|oksh|loksh|yash|posh|fish|csh|tcsh)$/,
    runsCode: anyArg(SHELL_FLAG, /^--(command|init-command)(=|$)/),
  },
  { name: /^(node|nodejs|node\d+|bun)$/, runsCode: anyArg(/^-(e|p|pe|ep)$/, /^--(eval|print)(=|$)/) },
  { name: /^deno$/, runsCode: (args) => args[0] === "eval" },
  { name: /^(python|pypy)[0-9.]*$/, runsCode: anyArg(shortFlagWith("c")) },
  { name: /^perl[0-9.]*$/, runsCode: anyArg(shortFlagWith("eE")) },
  { name: /^ruby[0-9.]*$/, runsCode: anyArg(shortFlagWith("e")) },
  { name: /^php[0-9.]*$/, runsCode: anyArg(/^-[rBRE]$/, /^--(run|process-(begin|code|end))(=|$)/) },
  { name: /^(lua[0-9.]*|luajit|Rscript|R|expect)$/, runsCode: anyArg(/^-(e|c)$/) },
  { name: /^(pwsh|powershell)$/, runsCode: anyArg(/^-(c|command|e|ec|encodedcommand)$/i) },
  {
    // The first operand is the program, unless one is read from a file.
    name: /^(awk|gawk|mawk|nawk)$/,
    runsCode: (args) =>
      args.length > 0 && (!anyArg(/^-f/, /^--file(=|$)/)(args) || anyArg(/^-e$/, /^--source(=|$)/)(args)),
  },
  // They hand a command line to a shell.
  { name: /^(su|runuser|script|flock)$/, runsCode: anyArg(SHELL_FLAG, /^--command(=|$)/) },
  { name: /^sg$/, runsCode: (args) => args.filter((arg) => !arg.startsWith("-")).length >= 2 },
  { name: /^watch$/, runsCode: (args) => args.length > 0 && !anyArg(/^(-x|--exec)$/)(args) },
  { name: /^(sudo|doas)$/, runsCode: anyArg(/^-[a-zA-Z]*[si][a-zA-Z]*$/, /^--(shell|login)$/) },
];

// Programs that run their arguments (or a string of them) as another command: every word after
// one of them is looked at as a program in its own right.
const WRAPPERS: ReadonlySet<string> = new Set([
  "env",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "xargs",
  "sudo",
  "doas",
  "busybox",
  "toybox",
  "setsid",
  "ionice",
  "chrt",
  "taskset",
  "time",
  "command",
  "unbuffer",
  "chroot",
  "strace",
  "ltrace",
  "valgrind",
  "find",
  "flock",
  "nsenter",
  "unshare",
  "setpriv",
  "prlimit",
  "numactl",
  "fakeroot",
  "faketime",
  "parallel",
  "bwrap",
  "firejail",
  "systemd-run",
  "dbus-run-session",
  "catchsegv",
  "su",
  "runuser",
  "sg",
  "watch",
  "script",
]);

/**
 * Says which program would run code given in the arguments of `command args`, looking through
 * wrappers and links, or `undefined` when none would; what `runCommand.allowShell: false` refuses.
 */
export function findInlineCode(
  command: string,
  args: readonly string[],
  lookup: CommandLookup,
): string | undefined {
  const wrapped = namesOf(command, lookup).some((name) => WRAPPERS.has(name));
  // Behind a wrapper every word may be a program, and a word may be a string it splits into
  // several (`env -S "sh -c …"`); otherwise only the command is.
  const words = wrapped
    ? [command, ...args.flatMap((arg) => arg.split(/\s+/).filter((word) => word !== ""))]
    : [command, ...args];
  const programs = wrapped ? words.length : 1;
  for (let index = 0; index < programs; index += 1) {
    const word = words[index] ?? "";
    const names = namesOf(word, lookup);
    const interpreter = INTERPRETERS.find((candidate) => names.some((name) => candidate.name.test(name)));
    if (interpreter?.runsCode(words.slice(index + 1))) {
      return index === 0
        ? JSON.stringify(word)
        : `${JSON.stringify(word)} (run by ${JSON.stringify(command)})`;
    }
  }
  return undefined;
}

// The names a word runs under: as written (busybox and friends pick the applet by it) and the
// real file's name after every link, for a path or a name found on PATH.
function namesOf(word: string, lookup: CommandLookup): string[] {
  const names = [basename(word)];
  const found = word.includes("/") ? resolve(lookup.cwd, word) : findExecutable(word, lookup.path);
  if (found !== undefined) {
    try {
      names.push(basename(realpathSync(found)));
    } catch {
      // Not there: the name as written is all there is.
    }
  }
  return names;
}
