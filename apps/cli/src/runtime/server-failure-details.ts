import { listProtectedPaths } from "../local-tools/index.js";
import { causeLines } from "../terminal/server-failure.js";
import type { Runtime } from "./runtime.js";
import { type SandboxDenial, sandboxDenialOf } from "./sandbox-denial.js";

/** Why a server that is not ready failed, beyond its error: what it wrote, what the sandbox denied it. */
export interface ServerFailureDetails {
  /** The lines of its stderr that name the cause (escaped, one line each); empty when it wrote none. */
  stderr: string[];
  /** What the sandbox denied it and which key grants that; null when nothing points at the sandbox. */
  sandbox: SandboxDenial | null;
}

/** Where a server's failure is read from: its entry, its process, its sandbox, its connection, its package. */
export type ServerFailureSources = Pick<
  Runtime,
  "config" | "serverProcesses" | "sandboxes" | "protectedPaths" | "connections" | "packages"
>;

/** How many lines of a server's stderr are searched for the cause. */
const SEARCHED_LINES = 200;

/** The {@link ServerFailureDetails} of the configured server `name`, as this runtime saw it fail. */
export function serverFailureDetails(runtime: ServerFailureSources, name: string): ServerFailureDetails {
  const stderr = runtime.serverProcesses.stderrTail(name, SEARCHED_LINES);
  const server = runtime.config.servers.find((candidate) => candidate.name === name);
  if (server?.type !== "stdio") return { stderr: causeLines(stderr), sandbox: null };
  const connection = runtime.connections.find((candidate) => candidate.name === name);
  const denial = sandboxDenialOf({
    server,
    isolated: runtime.sandboxes.isolationOf(server).isolation === "bwrap",
    stderr,
    refused: runtime.sandboxes.refusedConnections(name),
    error: connection?.snapshot().error,
    home: runtime.sandboxes.home,
    protectedPaths: listProtectedPaths(runtime.protectedPaths),
    packagePlan: runtime.packages.planOf(server),
  });
  return { stderr: causeLines(stderr), sandbox: denial ?? null };
}
