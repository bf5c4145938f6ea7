import { basename, isAbsolute, relative } from "node:path";

/** The command a user runs this CLI as when nothing says otherwise: the `agent` on PATH. */
export const DEFAULT_INVOCATION = "agent";

/**
 * How the user launched this CLI, as a command to print in hints (`<invocation> resume run_…`): the
 * repository's `pnpm agent` / `npm run agent --` script, the `agent` on PATH, or `node <script>` as
 * typed (relative to `cwd` when it lies below it). `script` is `process.argv[1]`, which keeps the
 * name of the link it was started through.
 */
export function invocationOf(script: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (env.npm_lifecycle_event === "agent") {
    const client = env.npm_config_user_agent?.split("/")[0];
    if (client === "pnpm") return "pnpm agent";
    if (client === "yarn") return "yarn agent";
    return "npm run agent --";
  }
  if (script === undefined || basename(script) === DEFAULT_INVOCATION) return DEFAULT_INVOCATION;
  const fromHere = relative(cwd, script);
  const shown = fromHere.startsWith("..") || isAbsolute(fromHere) ? script : fromHere;
  return `node ${shellQuoted(shown)}`;
}

// Line breaks, terminal controls and invisible format characters (bidirectional overrides).
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

// A word a shell reads back as `text`: bare when plain, else single-quoted; a path with characters
// that must not reach the terminal raw is ANSI-C quoted (`$'…\x1b…'`: bash, zsh, ksh), which
// writes them as escapes, so the hint stays printable and still pastes as that path.
function shellQuoted(text: string): string {
  if (/^[\w./@+-]+$/.test(text)) return text;
  if (!UNPRINTABLE.test(text)) return `'${text.replaceAll("'", "'\\''")}'`;
  const escaped = [...text].map((character) => {
    if (character === "\\" || character === "'") return `\\${character}`;
    if (!UNPRINTABLE.test(character)) return character;
    const code = character.codePointAt(0) ?? 0;
    // \x only below 0x80: above it bash writes the byte itself, not the character's UTF-8.
    if (code < 0x80) return `\\x${code.toString(16).padStart(2, "0")}`;
    return code <= 0xffff
      ? `\\u${code.toString(16).padStart(4, "0")}`
      : `\\U${code.toString(16).padStart(8, "0")}`;
  });
  return `$'${escaped.join("")}'`;
}
