import { availableParallelism } from "node:os";
import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/cli",
    include: ["test/**/*.test.ts"],
    // The end-to-end tests mostly wait on the CLI and server processes they spawn, not on a CPU.
    maxWorkers: 2,
    // But each of those processes needs a CPU to start: tests of one file run side by side (most
    // files are `describe.concurrent`) only as many at a time as there are cores, so that on a small
    // machine a test waits for its own processes rather than for its neighbours'.
    maxConcurrency: Math.max(2, availableParallelism()),
    // Vitest runs projects of one group order side by side, and they must then share `maxWorkers`;
    // with a group of its own this project runs after the libraries' tests, with its own limit.
    sequence: { groupOrder: 1 },
  },
});
