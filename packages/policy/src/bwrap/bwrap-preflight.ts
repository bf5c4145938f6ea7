import { spawn } from "node:child_process";
import { isolationArguments } from "./bwrap-arguments.js";
import { bwrapCandidate, findExecutable } from "./find-executable.js";
import { findPidsCgroupParent } from "./pids-cgroup.js";

/** Whether bubblewrap can run here, and if not why and what to do about it. */
export type BwrapPreflight =
  | {
      ok: true;
      bwrap: string;
      /** `prlimit` from util-linux, which sets the resource limits; absent means no rlimits are set. */
      prlimit: string | undefined;
      /** Where a pids cgroup per sandbox can be made (a process bound that holds for root too), if anywhere. */
      pidsCgroupParent: string | undefined;
    }
  | { ok: false; reason: string };

const WHAT_TO_DO =
  'install bubblewrap (Debian and Ubuntu: "apt-get install bubblewrap") or point AGENT_BWRAP at it, or set the policy\'s "sandbox" to "optional" to run unisolated';

const NAMESPACE_HINT =
  'bubblewrap is installed but cannot create its namespaces here. On Ubuntu 24.04 and later AppArmor restricts unprivileged user namespaces: allow them with "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" (or an AppArmor profile for bwrap); in a container, allow user namespaces (e.g. a seccomp profile that permits unshare); or set the policy\'s "sandbox" to "optional" to run unisolated';

// The real command line's namespaces and base mounts: if these work, the sandbox can be built.
const PROBE_TMP_BYTES = 1_048_576;

/**
 * Finds bubblewrap (`$AGENT_BWRAP`, else `bwrap` on `PATH`) and runs `bwrap <the sandbox's flags> true`
 * once. Never throws: a failure is a value whose reason says what to do.
 */
export async function preflightBwrap(
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 10_000,
): Promise<BwrapPreflight> {
  const candidate = bwrapCandidate(env);
  const bwrap = candidate.path === undefined ? undefined : findExecutable(candidate.path, env.PATH);
  if (bwrap === undefined) {
    const where =
      candidate.source === "env"
        ? `AGENT_BWRAP is ${JSON.stringify(candidate.path)}, which is not an executable file`
        : "bubblewrap (bwrap) was not found on PATH";
    return { ok: false, reason: `${where}; ${WHAT_TO_DO}` };
  }
  const outcome = await run(bwrap, [...isolationArguments(false, PROBE_TMP_BYTES), "--", "true"], timeoutMs);
  if (!outcome.ok) return { ok: false, reason: `${outcome.detail}; ${NAMESPACE_HINT}` };
  return {
    ok: true,
    bwrap,
    prlimit: findExecutable("prlimit", env.PATH),
    pidsCgroupParent: findPidsCgroupParent(),
  };
}

function run(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ ok: true } | { ok: false; detail: string }> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(command, [...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString("utf8");
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: `${command} could not be run (${error.message})` });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ ok: true });
      const said = stderr.trim().split("\n")[0] ?? "";
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve({ ok: false, detail: `"${command} ... true" ${how}${said ? `: ${said}` : ""}` });
    });
  });
}
