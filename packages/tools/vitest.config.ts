import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/tools",
    include: ["test/**/*.test.ts"],
    // The audit tests start child processes; on a loaded two-core CI machine 5 s is too tight.
    testTimeout: 20_000,
  },
});
