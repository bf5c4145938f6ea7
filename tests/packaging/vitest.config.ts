import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  // What the tests import of the packages (error-classes.test.ts) resolves to their sources.
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/packaging-tests",
    include: ["test/**/*.test.ts"],
    // Packing, an npm install and two type-checks: minutes, not seconds, on two cores.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    sequence: { groupOrder: 1 },
  },
});
