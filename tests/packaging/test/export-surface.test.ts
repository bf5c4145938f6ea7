import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { type ExportKind, exportSurfaces, pendingChangesets, publishablePackages } from "./export-surface.js";

// A public API change is a deliberate diff: each publishable package's export surface (every
// `exports` subpath: names and kinds) is recorded in export-surface/<folder>.json, and each recorded
// change names the changeset that announces it. The check needs no git (no base branch, no history,
// nothing a shallow CI clone lacks): a snapshot that changes must cite a pending changeset naming the
// package, other than the one the previous snapshot cited; a cited changeset must stay until a
// release consumes it (the package's version then moves past the recorded one).

/** The snapshot of one package, as committed. */
interface SurfaceSnapshot {
  package: string;
  /** The changeset that announced this surface, and the package's version when it was recorded. */
  announcedBy: { changeset: string; version: string } | null;
  entries: Record<string, Record<string, ExportKind>>;
}

const root = new URL("../../..", import.meta.url).pathname;
const snapshots = new URL("../export-surface", import.meta.url).pathname;
const UPDATE = "pnpm exports:update";
const packages = publishablePackages(root);
const surfaces = exportSurfaces(
  root,
  packages.flatMap((pkg) => Object.values(pkg.entries)),
);
const changesets = pendingChangesets(root);

describe("export surfaces", () => {
  it("has a snapshot for every publishable package and none for a package that is gone", () => {
    const recorded = existsSync(snapshots)
      ? readdirSync(snapshots).filter((file) => file.endsWith(".json"))
      : [];
    const stale = recorded.filter(
      (file) => !packages.some((pkg) => snapshotFile(pkg.dir).endsWith(`/${file}`)),
    );
    expect(stale, `delete these snapshots of packages that no longer exist: ${stale.join(", ")}`).toEqual([]);
  });

  for (const pkg of packages) {
    const file = snapshotFile(pkg.dir);
    const shown = relative(root, file);
    const stored = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as SurfaceSnapshot) : undefined;
    const entries = Object.fromEntries(
      Object.entries(pkg.entries).map(([subpath, source]) => [subpath, surfaces.get(source) ?? {}]),
    );
    const changed = stored === undefined || JSON.stringify(stored.entries) !== JSON.stringify(entries);

    it(`${pkg.name}: its exports are the recorded ones, announced by a changeset`, async () => {
      let announcedBy = stored?.announcedBy ?? null;
      if (changed) {
        const previous = stored?.announcedBy?.changeset;
        const candidate = changesets.find(
          (changeset) => changeset.packages.includes(pkg.name) && changeset.name !== previous,
        );
        expect(
          candidate,
          `The export surface of ${pkg.name} differs from ${shown}. A public API change comes with a changeset: ` +
            `add one naming ${pkg.name} (\`pnpm changeset\`; ${previous ? `not .changeset/${previous}.md, which announced the previous change` : "none names it yet"}), ` +
            `then run \`${UPDATE}\` and commit both.`,
        ).toBeDefined();
        announcedBy = { changeset: candidate?.name ?? "", version: pkg.version };
      }
      const snapshot: SurfaceSnapshot = { package: pkg.name, announcedBy, entries };
      await expect(
        `${JSON.stringify(snapshot, null, 2)}\n`,
        `The export surface of ${pkg.name} differs from ${shown}. If the change is deliberate, run \`${UPDATE}\` ` +
          "(vitest -u on this test) and commit the snapshot with the changeset it names.",
      ).toMatchFileSnapshot(file);
    });

    it(`${pkg.name}: the changeset its snapshot cites is pending until a release consumes it`, () => {
      const cited = stored?.announcedBy;
      // Released since: `changeset version` consumed the changeset and moved the version on.
      if (!cited || cited.version !== pkg.version) return;
      const pending = changesets.find((changeset) => changeset.name === cited.changeset);
      expect(
        pending?.packages ?? [],
        `${shown} cites .changeset/${cited.changeset}.md, which must exist and name ${pkg.name} until a release ` +
          `consumes it. Restore it, or cite another pending changeset naming ${pkg.name} (\`${UPDATE}\`).`,
      ).toContain(pkg.name);
    });
  }
});

function snapshotFile(packageDir: string): string {
  return join(snapshots, `${basename(packageDir)}.json`);
}
