import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.shared.js";

// On another Node line than the install's, scripts/node-matrix builds better-sqlite3 for that line
// and names its folder here: the workspace's addon is built for one Node ABI only.
const betterSqlite3 = process.env.AGENT_BETTER_SQLITE3_DIR;

export default defineProject({
  resolve: {
    conditions: sourceConditions,
    ...(betterSqlite3 && { alias: { "better-sqlite3": betterSqlite3 } }),
  },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/store-sqlite",
    include: ["test/**/*.test.ts"],
  },
});
