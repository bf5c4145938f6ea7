import { messageOf } from "@agent/base";
import type { ServerConfig, StdioServerConfig } from "../config/index.js";
import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import { isRepinned, voidApprovalsOfRepinnedServer } from "../packages/package-approvals.js";
import { type PackageCache, packageSummaryOf } from "../packages/package-cache.js";
import { PACKAGE_CACHE_ERROR_CODES, PackageCacheError } from "../packages/package-cache-error.js";
import type { ConfiguredRuntime } from "../runtime/configured-runtime.js";
import { describeInstalled } from "../terminal/install-progress.js";
import { type CliIo, safeLine, styleFor, writeJson, writeLine } from "../terminal/io.js";
import { plural } from "../terminal/table.js";

/** One server's refresh, as `--json` reports it. */
type RefreshOutcome =
  | {
      name: string;
      status: "refreshed";
      package: ReturnType<typeof packageSummaryOf>;
      /** Pending and granted approvals of the server's tools voided because its package changed. */
      voidedApprovals: number;
    }
  | { name: string; status: "failed"; error: { code: string; message: string } };

/** What `mcp refresh` works with: the servers' entries, their package cache, and the approvals a new package voids. */
export interface RefreshDeps extends Pick<ConfiguredRuntime, "config" | "state" | "events"> {
  packages: Pick<PackageCache, "cached" | "refresh" | "planOf">;
}

/**
 * `agent mcp refresh [server...]`: resolves and installs again the packages of the named
 * package-runner servers (npx, npm exec, uvx, uv tool run), or of every enabled one when none is
 * named. Each new install replaces the cached one only once it succeeded; no server is started.
 * Exit 0 when every refresh succeeded, 1 when one failed, 2 when a name is not such a server.
 */
export async function mcpRefreshCommand(
  runtime: RefreshDeps,
  io: CliIo,
  options: { servers: readonly string[]; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const targets = refreshTargets(runtime, options.servers);
  const outcomes: RefreshOutcome[] = [];
  // One after another: each install's progress reads as one block, and the registry is asked once at a time.
  for (const server of targets) {
    if (signal.aborted) break;
    const before = runtime.packages.cached(server);
    try {
      const after = await runtime.packages.refresh(server, signal);
      const voidedApprovals =
        before && isRepinned(before.packages, after.packages)
          ? await voidApprovalsOfRepinnedServer(runtime.state.approvals, server.name, runtime.events)
          : 0;
      outcomes.push({
        name: server.name,
        status: "refreshed",
        package: packageSummaryOf(after),
        voidedApprovals,
      });
    } catch (error) {
      // The cache throws only PackageCacheErrors; anything else is still an install that failed.
      const code = PackageCacheError.isInstance(error) ? error.code : PACKAGE_CACHE_ERROR_CODES.installFailed;
      outcomes.push({ name: server.name, status: "failed", error: { code, message: messageOf(error) } });
    }
  }
  if (options.json) {
    writeJson(io, { servers: outcomes });
  } else if (targets.length === 0) {
    writeLine(
      io.stdout,
      "No enabled server runs through npx, npm exec, uvx or uv tool run: nothing to refresh.",
    );
  } else {
    const style = styleFor(io.stdout, io.env);
    for (const outcome of outcomes) {
      const name = style.bold(safeLine(outcome.name));
      writeLine(
        io.stdout,
        outcome.status === "refreshed"
          ? `${name}  ${style.green("refreshed")}  ${describeInstalled(outcome.package)}${outcome.voidedApprovals > 0 ? `  (voided ${plural(outcome.voidedApprovals, "approval")} given for the old package)` : ""}`
          : `${name}  ${style.red("failed")}  ${safeLine(outcome.error.message)}`,
      );
    }
  }
  return outcomes.every((outcome) => outcome.status === "refreshed") ? EXIT_CODES.ok : EXIT_CODES.failed;
}

function refreshTargets(runtime: RefreshDeps, names: readonly string[]): StdioServerConfig[] {
  const served = (server: ServerConfig): server is StdioServerConfig =>
    server.type === "stdio" && runtime.packages.planOf(server).kind === "package";
  if (names.length === 0) return runtime.config.servers.filter(served).filter((server) => !server.disabled);
  return names.map((name) => {
    const server = runtime.config.servers.find((candidate) => candidate.name === name);
    if (!server)
      throw new CliExit(EXIT_CODES.usage, `no MCP server named "${safeLine(name)}" is configured.`);
    const plan = server.type === "stdio" ? runtime.packages.planOf(server) : undefined;
    if (served(server)) return server;
    throw new CliExit(
      EXIT_CODES.usage,
      plan?.kind === "unsupported"
        ? `server "${safeLine(name)}" runs ${plan.runner}, but not in a form the package cache serves: ${safeLine(plan.reason)}.`
        : `server "${safeLine(name)}" is not started through npx, npm exec, uvx or uv tool run: it has no cached package to refresh.`,
    );
  });
}
