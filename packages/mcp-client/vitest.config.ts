import { defineProject } from "vitest/config";
import { loadFactor, sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/mcp-client",
    include: ["test/**/*.test.ts"],
    // Integration tests spawn real servers; on a loaded two-core CI machine 5 s is too tight.
    testTimeout: Math.round(20_000 * loadFactor()),
  },
});
