import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@agent/packaging-tests",
    include: ["test/**/*.test.ts"],
    // Packing, an npm install and two type-checks: minutes, not seconds, on two cores.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    sequence: { groupOrder: 1 },
  },
});
