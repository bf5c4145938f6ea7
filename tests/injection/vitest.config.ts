import { defineProject } from "vitest/config";
import { sourceConditions } from "../../vitest.shared.js";

export default defineProject({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    name: "@agent/injection-tests",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/summary-setup.ts"],
    // Each scenario mostly waits on CLI processes and the four sandboxed servers each one starts; on
    // two shared cores, more than a few at once only makes every one of them slower.
    maxWorkers: 2,
    maxConcurrency: 2,
    // A group of its own: it runs after the libraries' and the CLI's tests, with its own limit.
    sequence: { groupOrder: 2 },
  },
});
