import type { CachedPackage, InstallProgress } from "../packages/package-cache.js";
import { type CliIo, safeLine, styleFor, writeLine } from "./io.js";

/** How often, at most, a terminal gets a line saying an install is still going. */
const PROGRESS_INTERVAL_MS = 2_000;

/**
 * Install progress on stderr: a line when an install starts and when it ends (always: it explains
 * a first start's wait and says what now runs), and on a terminal, while it runs, how many
 * requests the installer has made so far, at most one line every two seconds per server.
 */
export function createInstallProgress(io: CliIo): InstallProgress {
  const style = styleFor(io.stderr, io.env);
  const running = new Map<string, { started: number; fetches: number; shownAt: number }>();
  const seconds = (started: number): string => `${((performance.now() - started) / 1000).toFixed(1)}s`;
  return {
    started(server, what, refresh) {
      running.set(server, { started: performance.now(), fetches: 0, shownAt: performance.now() });
      writeLine(
        io.stderr,
        `agent: ${refresh ? "refreshing" : "installing"} ${safeLine(what)} for server "${safeLine(server)}", outside the sandbox, into the package cache${refresh ? "" : " (once: later starts run it from there, offline)"}…`,
      );
    },
    line(server, line) {
      const state = running.get(server);
      if (!state || !/\bhttp fetch\b/.test(line)) return;
      state.fetches += 1;
      const now = performance.now();
      if (!io.stderr.isTTY || now - state.shownAt < PROGRESS_INTERVAL_MS) return;
      state.shownAt = now;
      writeLine(
        io.stderr,
        style.dim(`  ${safeLine(server)}: ${state.fetches} requests so far (${seconds(state.started)})`),
      );
    },
    finished(server, outcome) {
      const state = running.get(server);
      running.delete(server);
      const took = state ? ` in ${seconds(state.started)}` : "";
      writeLine(
        io.stderr,
        outcome.ok
          ? `agent: ${style.green("installed")} ${describeInstalled(outcome.installed)} for server "${safeLine(server)}"${took}`
          : `agent: ${style.red("could not install")} the package of server "${safeLine(server)}"${took} (the server fails; its error says why)`,
      );
    },
  };
}

/** `name@version (sha512-abcdef…)` for each pinned package, one line. */
export function describeInstalled(installed: Pick<CachedPackage, "packages">): string {
  return safeLine(
    installed.packages
      .map(
        ({ name, version, integrity }) =>
          `${name}@${version}${integrity ? ` (${shortIntegrity(integrity)})` : ""}`,
      )
      .join(", "),
  );
}

function shortIntegrity(integrity: string): string {
  return integrity.length > 24 ? `${integrity.slice(0, 20)}…` : integrity;
}
