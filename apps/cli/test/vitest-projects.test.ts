import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const REPOSITORY = fileURLToPath(new URL("../../../", import.meta.url));

/** The per-package configs the root `vitest run` combines (its `projects: ["packages/*", "apps/*"]`). */
function projectConfigFiles(): string[] {
  return ["packages", "apps"]
    .flatMap((folder) =>
      readdirSync(join(REPOSITORY, folder)).map((name) => join(REPOSITORY, folder, name, "vitest.config.ts")),
    )
    .filter((file) => existsSync(file));
}

interface ProjectTestOptions {
  name?: string;
  maxWorkers?: number | string;
  sequence?: { groupOrder?: number };
}

describe("the root test run", () => {
  // Vitest refuses to start a run in which two projects of one group order differ in maxWorkers.
  it("gives projects that limit their workers differently a group order of their own", async () => {
    const groups = new Map<number, { name: string; maxWorkers: unknown }[]>();
    for (const file of projectConfigFiles()) {
      const config = ((await import(pathToFileURL(file).href)) as { default: { test?: ProjectTestOptions } })
        .default;
      const order = config.test?.sequence?.groupOrder ?? 0;
      const members = groups.get(order) ?? [];
      members.push({ name: config.test?.name ?? file, maxWorkers: config.test?.maxWorkers });
      groups.set(order, members);
    }
    expect([...groups.values()].flat().map((project) => project.name)).toContain("@agent/cli");
    for (const [order, members] of groups) {
      const limits = new Set(members.map((project) => project.maxWorkers));
      expect(limits.size, `group order ${order}: ${JSON.stringify(members)}`).toBe(1);
    }
  });
});
