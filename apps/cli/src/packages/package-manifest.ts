// The manifest of one cache entry: which install directory is current, what it pins, what it runs.
// Written last (an atomic rename) after an install succeeded, so a reader sees a whole install or
// none. Its shape is read back by later CLI versions: add fields, do not rename them.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { PackageRunnerCommand } from "./package-runner-command.js";

const MANIFEST_FILE = "manifest.json";

const MANIFEST_SCHEMA = z.object({
  version: z.literal(1),
  installer: z.enum(["npm", "uv"]),
  /** The packages as the command asked for them (`name@spec`). */
  requested: z.array(z.string()),
  packages: z.array(z.object({ name: z.string(), version: z.string(), integrity: z.string().nullable() })),
  /** The install directory, relative to the entry's directory. */
  installDir: z.string().regex(/^[A-Za-z0-9._-]+$/),
  /** The file run, relative to the entry's directory. */
  entry: z.string(),
  interpreter: z.enum(["node"]).nullable(),
  installedAt: z.string(),
});

/** What one cache entry holds: read from and written to its `manifest.json`. */
export type PackageManifest = z.infer<typeof MANIFEST_SCHEMA>;

/**
 * The directory of the cache entry for `command` under `root`: one per installer, packages (as
 * asked), executable, registry and Python, so two servers asking for the same share it, and a
 * changed request gets a new entry rather than another's install.
 */
export function entryDirOf(root: string, command: PackageRunnerCommand, scripts: boolean): string {
  const key = JSON.stringify([
    command.installer,
    command.packages.map(({ name, spec }) => [name, spec]),
    command.bin ?? null,
    command.registry ?? null,
    command.python ?? null,
    scripts,
  ]);
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 16);
  const first = command.packages[0]?.name ?? "package";
  const slug = first.replace(/^@/, "").replace(/[^A-Za-z0-9._-]+/g, "+");
  return join(root, command.installer, `${slug}-${hash}`);
}

/** The entry's manifest, or undefined when there is none yet (or it is unreadable: then it is installed again). */
export function readManifest(entryDir: string): PackageManifest | undefined {
  try {
    const parsed = MANIFEST_SCHEMA.safeParse(JSON.parse(readFileSync(join(entryDir, MANIFEST_FILE), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the entry's manifest in one rename. */
export function writeManifest(entryDir: string, manifest: PackageManifest): void {
  const temporary = join(entryDir, `.${MANIFEST_FILE}.${randomBytes(6).toString("hex")}`);
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
  renameSync(temporary, join(entryDir, MANIFEST_FILE));
}

/** A new install directory's name: sortable by time, unique across processes. */
export function newInstallDirName(): string {
  return `install-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}
