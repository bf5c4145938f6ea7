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
  },
});
