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
  return `node ${/^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`}`;
}
