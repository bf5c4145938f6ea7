import { fileURLToPath } from "node:url";

/**
 * The misbehaving stdio servers, each a Node script next to this file. Every server records events
 * (`started`, `cancelled`, `grandchild`, ...) on stderr, and to MCP_TESTING_RECORD_FILE when set;
 * `exit-mid-call` exits with MCP_TESTING_EXIT_CODE (default 3), `flood-stderr` writes
 * MCP_TESTING_STDERR_BYTES (default 4 MiB) before it starts, `echo-secrets` echoes its credentials
 * in every encoding everywhere it can, `budget-buster` pages 3 MB descriptions 1,000 times, `forge-lines` puts line breaks and a
 * fake listing line into every one-line field (MCP_TESTING_FORGE_INITIALIZE=1: into its handshake error),
 * `deep-result` answers every call with a result nested MCP_TESTING_DEPTH (20,000) levels deep.
 */
export const MISBEHAVING_SERVERS = [
  "hang-initialize",
  "hang-call",
  "exit-mid-call",
  "ignore-sigterm",
  "noisy-stdout",
  "flood-stderr",
  "huge-message",
  "schema-change",
  "echo-secrets",
  "budget-buster",
  "forge-lines",
  "deep-result",
] as const;

/** The name of a misbehaving server. */
export type MisbehavingServerName = (typeof MISBEHAVING_SERVERS)[number];

/** Every test server: the misbehaving ones and the well-behaved scriptable one. */
export type TestServerName = MisbehavingServerName | "scriptable";

/** The absolute path of a misbehaving server script, runnable with `node <path>`. */
export function misbehavingServerPath(name: MisbehavingServerName): string {
  if (!(MISBEHAVING_SERVERS as readonly string[]).includes(name)) {
    throw new Error(
      `Unknown misbehaving server "${String(name)}"; use one of ${MISBEHAVING_SERVERS.join(", ")}.`,
    );
  }
  return scriptPath(name);
}

/** The absolute path of the 2024-11-05 server on the old SDK (`stdio`, or `sse` on PORT: GET /sse, POST /messages). */
export function legacyServerPath(): string {
  return scriptPath("legacy-2024-server");
}

/** The absolute path of the current SDK's legacy HTTP+SSE server (express on PORT: GET /sse, POST /messages). */
export function sseServerPath(): string {
  return scriptPath("sse-server");
}

/** The absolute path of the well-behaved scriptable server (tools from MCP_TESTING_TOOLS, `slow`, `env`, `fail`, `echo`). */
export function scriptableServerPath(): string {
  return scriptPath("scriptable-server");
}

/** The absolute path of the escape server: one tool per attempt to leave a sandbox (read, write, connect, proxy, daemon, fill, fork, remount). */
export function escapeServerPath(): string {
  return scriptPath("escape-server");
}

/** The command and arguments that start a test server with the current Node binary. */
export function testServerCommand(name: TestServerName): { command: string; args: string[] } {
  const path = name === "scriptable" ? scriptableServerPath() : misbehavingServerPath(name);
  return { command: process.execPath, args: [path] };
}

/** The absolute path of the hostile HTTP server that answers 404 with the request's path, query and headers echoed (honours `PORT`). */
export function echoSecretsHttpServerPath(): string {
  return scriptPath("echo-secrets-http");
}

/**
 * The absolute path of the stateless 2026-07-28 HTTP server (honours `PORT`): `route` answers with the
 * `Mcp-*` headers it received, `confirm` asks for input as an InputRequiredResult with a requestState,
 * `broken` carries an invalid `x-mcp-header`, `job` runs as a task (tasks extension; a held one ends
 * after `releaseHeldJobs`). Every request is a `received` record (MCP_TESTING_RECORD_FILE).
 */
export function statelessServerPath(): string {
  return scriptPath("stateless-server");
}

function scriptPath(file: string): string {
  return fileURLToPath(new URL(`./${file}.mjs`, import.meta.url));
}
