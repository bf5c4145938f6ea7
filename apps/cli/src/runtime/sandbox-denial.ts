import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { StdioServerConfig } from "../config/index.js";
import { isSameOrInside } from "../local-tools/index.js";
import type { PackageRunnerParse } from "../packages/package-runner-command.js";

/** What the sandbox denied a server that failed, and the configuration key that would grant it. */
export interface SandboxDenial {
  /** `network`: it tried to reach a host; `path`: a file outside what the sandbox shows or lets it write. */
  kind: "network" | "path";
  /** The host (`host` or `host:port`), or the absolute path. */
  target: string;
  /** The key that grants it, e.g. `mcpServers.files.sandbox.network`. */
  grant: string;
  /** One sentence for people: what was denied and what to set. */
  message: string;
}

/** What is known about a failed server when its denial is looked for. */
export interface DenialEvidence {
  server: StdioServerConfig;
  /** Whether it ran inside bubblewrap: an unisolated server is denied nothing by the sandbox. */
  isolated: boolean;
  /** Its stderr (escaped). */
  stderr: string;
  /** The connections the allow-list proxy refused it (`host:port`). */
  refused: readonly string[];
  /** Why the connection failed. */
  error: { code: string; message: string } | undefined;
  /** The home directory the sandbox hides behind an empty one. */
  home: string;
  /** The harness's own files (config, state): never shown to a server, whatever it is granted. */
  protectedPaths: readonly string[];
  /** How the package cache sees the server's command. */
  packagePlan: PackageRunnerParse;
}

// Node's `getaddrinfo EAI_AGAIN host` and `connect ECONNREFUSED 1.2.3.4:443`; Python's and curl's wording.
const UNRESOLVED = /getaddrinfo (?:EAI_AGAIN|ENOTFOUND) ([\w.-]+)/;
const UNREACHABLE = /\b(?:ENETUNREACH|EHOSTUNREACH|ECONNREFUSED) ([\w.:[\]-]+)/;
const NO_NETWORK =
  /Temporary failure in name resolution|Network is unreachable|Could not resolve host: ([\w.-]+)/;
// `ENOENT: no such file or directory, open '/x'`, `Cannot find module '/x'`, `[Errno 2] … : '/x'`.
const PATH_ERROR =
  /\b(ENOENT|EACCES|EPERM|EROFS)\b[^']*'([^']+)'|Cannot find module '([^']+)'|\[Errno (2|13|30)\][^']*'([^']+)'/;

/**
 * What the sandbox denied a failed server, from what it wrote and what the proxy refused; undefined
 * when nothing points at the sandbox (then the server's own error stands alone).
 */
export function sandboxDenialOf(evidence: DenialEvidence): SandboxDenial | undefined {
  if (!evidence.isolated) return undefined;
  const key = `mcpServers.${evidence.server.name}.sandbox`;
  return (
    networkDenial(evidence, key) ??
    pathDenial(evidence, key) ??
    unservedRunner(evidence, key) ??
    (/timed out/.test(evidence.error?.message ?? "") ? silentTimeout(evidence, key) : undefined)
  );
}

// `npx ./dir`, `npx -c …`: the runner itself runs inside, with no network and an empty home.
function unservedRunner({ packagePlan }: DenialEvidence, key: string): SandboxDenial | undefined {
  if (packagePlan.kind !== "unsupported") return undefined;
  return {
    kind: "network",
    target: "the package registry",
    grant: `${key}.network`,
    message: `${packagePlan.runner} runs as written inside the sandbox, with no network and an empty home, since the package cache cannot serve this command: ${packagePlan.reason}; name a registry package, or install it and run its executable directly`,
  };
}

function networkDenial({ server, stderr, refused }: DenialEvidence, key: string): SandboxDenial | undefined {
  const network = server.sandbox.network;
  if (network === "allow") return undefined;
  const refusedHost = refused.at(-1);
  const host =
    refusedHost ??
    UNRESOLVED.exec(stderr)?.[1] ??
    UNREACHABLE.exec(stderr)?.[1] ??
    NO_NETWORK.exec(stderr)?.[1];
  if (host === undefined && !(network === "deny" && NO_NETWORK.test(stderr))) return undefined;
  const target = host ?? "the network";
  const allowed = typeof network === "object" ? `only ${network.allowHosts.join(", ")}` : "no network";
  const bare = host?.replace(/:\d+$/, "") ?? "<host>";
  return {
    kind: "network",
    target,
    grant: `${key}.network`,
    message: `the sandbox denied it ${target === "the network" ? "the network" : `a connection to ${target}`} (it has ${allowed}); to allow it, add "${bare}" to ${key}.network`,
  };
}

function pathDenial(evidence: DenialEvidence, key: string): SandboxDenial | undefined {
  const match = PATH_ERROR.exec(evidence.stderr);
  if (!match) return undefined;
  const code =
    match[1] ?? (match[3] ? "ENOENT" : { "2": "ENOENT", "13": "EACCES", "30": "EROFS" }[match[4] ?? ""]);
  const path = match[2] ?? match[3] ?? match[5] ?? "";
  if (!isAbsolute(path)) return undefined;
  if (evidence.protectedPaths.some((protectedPath) => isSameOrInside(protectedPath, path))) {
    return {
      kind: "path",
      target: path,
      grant: `${key}.read`,
      message: `the sandbox hides ${path}: it is the harness's own (its config or state) and no grant shows it; move what the server needs elsewhere`,
    };
  }
  const hidden = [evidence.home, "/tmp", "/run"].some((root) => isSameOrInside(root, path));
  const writes = code === "EROFS" || code === "EACCES" || code === "EPERM";
  if (writes && !evidence.server.sandbox.write.some((root) => isSameOrInside(root, path))) {
    return {
      kind: "path",
      target: path,
      grant: `${key}.write`,
      message: `the sandbox let it read but not write ${path} (${code}); to allow writing, add it (or its directory) to ${key}.write`,
    };
  }
  // A path missing on this machine too is the server's own problem, not the sandbox's.
  if (!hidden || !existsSync(path)) return undefined;
  return {
    kind: "path",
    target: path,
    grant: `${key}.read`,
    message: `the sandbox hides ${path} (${code}: the home directory and /tmp are empty inside); to show it, add it to ${key}.read`,
  };
}

function silentTimeout(
  { packagePlan, stderr, server }: DenialEvidence,
  key: string,
): SandboxDenial | undefined {
  if (stderr.trim() !== "" || server.sandbox.network === "allow") return undefined;
  return {
    kind: "network",
    target: "the network",
    grant: `${key}.network`,
    message: `it wrote nothing before the timeout; inside the sandbox it has ${describeNetwork(packagePlan)}no network unless ${key}.network lists hosts, and an empty home unless ${key}.read shows what it reads`,
  };
}

function describeNetwork(plan: PackageRunnerParse): string {
  return plan.kind === "package" ? "its package from the cache, " : "";
}
