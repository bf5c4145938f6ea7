import { spawn } from "node:child_process";
import { PACKAGE_CACHE_ERROR_CODES, PackageCacheError } from "./package-cache-error.js";

/** One run of an installer (npm, uv): outside the sandbox, with the user's environment and network. */
export interface InstallerRun {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Receives each line the installer writes to stderr (npm's `--loglevel=http` lines are its progress). */
  onLine?: (line: string) => void;
  signal?: AbortSignal | undefined;
}

/** How many of the installer's last stderr lines a failure quotes. */
const QUOTED_LINES = 8;

/** Runs the installer to its end; rejects with its last stderr lines when it fails or is interrupted. */
export function runInstaller(run: InstallerRun): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, [...run.args], {
      cwd: run.cwd,
      env: definedOnly(run.env),
      stdio: ["ignore", "ignore", "pipe"],
      ...(run.signal ? { signal: run.signal } : {}),
    });
    const lines: string[] = [];
    let partial = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 200) lines.shift();
        run.onLine?.(line);
      }
    });
    child.on("error", (error) => {
      reject(
        run.signal?.aborted
          ? new PackageCacheError(
              PACKAGE_CACHE_ERROR_CODES.installInterrupted,
              "the install was interrupted",
              { cause: error },
            )
          : new PackageCacheError(
              PACKAGE_CACHE_ERROR_CODES.installFailed,
              `could not run ${run.command}: ${error.message}`,
              {
                cause: error,
              },
            ),
      );
    });
    child.on("close", (code, signal) => {
      if (partial !== "") lines.push(partial);
      if (code === 0) {
        resolve();
        return;
      }
      const quoted = lines
        .filter((line) => line.trim() !== "" && !/\bnpm http fetch\b/.test(line))
        .slice(-QUOTED_LINES);
      const ending = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
      reject(
        new PackageCacheError(
          PACKAGE_CACHE_ERROR_CODES.installFailed,
          `${run.command} ${ending}${quoted.length > 0 ? `:\n${quoted.join("\n")}` : ""}`,
        ),
      );
    });
  });
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value;
  return defined;
}
