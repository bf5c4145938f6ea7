import { resolve } from "node:path";
import { allowHostsPolicy, type NetworkPolicy, parseAllowEntry } from "@agent/policy";
import { z } from "zod";

/** What one stdio server's sandbox grants, paths absolute (relative ones resolved against `workspaceRoot`). */
export interface ServerSandboxConfig {
  /** `deny` (`"none"` in the file, the default), or the hosts (and `host:port`s) its proxy lets through. */
  network: NetworkPolicy;
  /** Writable paths; everything else is read-only or hidden. */
  write: string[];
  /** Extra readable paths, e.g. under the hidden home directory. */
  read: string[];
}

const pathListSchema = z.array(z.string().min(1, { message: "a path may not be empty" }));

/** The JSON form of a stdio server's `sandbox` key; every field optional. */
export const SERVER_SANDBOX_SCHEMA = z.strictObject({
  network: z
    .union([
      z.literal("none"),
      z.array(
        z.string().superRefine((host, context) => {
          const parsed = parseAllowEntry(host);
          if (!parsed.ok) context.addIssue({ code: "custom", message: parsed.problem });
        }),
      ),
    ])
    .optional(),
  write: pathListSchema.optional(),
  read: pathListSchema.optional(),
});

/** A parsed `sandbox` entry, before its paths are resolved. */
export type ServerSandboxEntry = z.infer<typeof SERVER_SANDBOX_SCHEMA>;

/**
 * The sandbox of a server entry: network `none` unless it lists hosts (an empty list is `none` too),
 * paths resolved against `workspaceRoot`. `expand` expands `${VAR}` in each path (undefined on failure).
 */
export function resolveServerSandbox(
  entry: ServerSandboxEntry | undefined,
  workspaceRoot: string,
  expand: (text: string, field: "write" | "read", index: number) => string | undefined,
): ServerSandboxConfig {
  const paths = (field: "write" | "read"): string[] =>
    (entry?.[field] ?? []).map((path, index) => resolve(workspaceRoot, expand(path, field, index) ?? "."));
  const network = entry?.network;
  return {
    network: network === undefined || network === "none" ? "deny" : allowHostsPolicy(network),
    write: paths("write"),
    read: paths("read"),
  };
}
