import { defineProject } from "vitest/config";
import { loadFactor, sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/mcp-transport",
    include: ["test/**/*.test.ts"],
    // Integration tests spawn real servers: 20 s idle, scaled by the machine's load at the start.
    testTimeout: Math.round(20_000 * loadFactor()),
  },
});
