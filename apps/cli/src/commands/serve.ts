import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { startConsoleServer } from "@agent/console";
import type { CliArgs } from "../cli-args.js";
import { EXIT_CODES, type ExitCode, usageError } from "../exit-codes.js";
import { currentUserName, openStateRuntime, stateOnlyRedactor } from "../runtime/state-runtime.js";
import { type CliIo, safeText, writeLine } from "../terminal/io.js";
import {
  type CliInvocation,
  createApprovalPort,
  createAuditPort,
  createRunPort,
  createServersPort,
} from "./console-ports.js";

/**
 * `agent serve [--port N] [--host H] [--tls-cert F --tls-key F | --insecure-http]`: the operator
 * console on the CLI's own state, until interrupted. It prints a one-time login link; decisions are
 * recorded as `console:<user>` through the same code as `agent approvals approve|deny`.
 */
export async function serveCommand(args: CliArgs, io: CliIo, signal: AbortSignal): Promise<ExitCode> {
  const { host, port, tlsCert, tlsKey, insecureHttp } = args.serve;
  const tls = readTls(tlsCert, tlsKey);
  if (!isLoopback(host) && !tls && !insecureHttp) {
    throw usageError(
      `Not serving on ${host}: beyond this machine, the login link and session cookie would cross the network in clear text. Give --tls-cert and --tls-key, reach it through an SSH tunnel (ssh -L ${port}:127.0.0.1:${port}), or pass --insecure-http if the network is trusted.`,
    );
  }
  const redact = stateOnlyRedactor(args, io);
  const operator = currentUserName();
  const runtime = await openStateRuntime({ ...args, decidedBy: `console:${operator}` }, io);
  const cli: CliInvocation = {
    command: process.execPath,
    script: process.argv[1] ?? "agent",
    globalArgs: ["--config", runtime.configFile, "--state-dir", runtime.stateDir],
  };
  try {
    const runs = createRunPort(runtime, redact, cli);
    const server = await startConsoleServer({
      ports: {
        approvals: createApprovalPort(runtime, redact),
        runs,
        audit: createAuditPort(runtime, redact),
        servers: createServersPort(cli),
      },
      operator,
      host,
      port,
      ...(tls && { tls }),
    });
    writeLine(
      io.stderr,
      safeText(
        `agent: console at ${server.origin}${!tls && !isLoopback(host) ? " (plain HTTP: --insecure-http)" : ""}`,
      ),
    );
    writeLine(io.stderr, "agent: open this one-time login link (it works once; restart to get another):");
    writeLine(io.stdout, server.loginUrl);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await server.close();
    await runs.settled();
  } finally {
    await runtime.close();
  }
  return EXIT_CODES.ok;
}

function readTls(
  cert: string | undefined,
  key: string | undefined,
): { cert: Buffer; key: Buffer } | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw usageError("--tls-cert and --tls-key go together: give both PEM files.");
  try {
    return { cert: readFileSync(cert), key: readFileSync(key) };
  } catch (error) {
    throw usageError(`The TLS files could not be read: ${(error as Error).message}`);
  }
}

/** Whether `host` is this machine only (127.0.0.0/8, ::1, localhost). */
function isLoopback(host: string): boolean {
  if (host === "localhost" || host === "::1") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}
