import { RUN_STORE_CONTRACT } from "@agent/loop/testing";
import { afterEach, describe, inject, it } from "vitest";
import { openPostgresState } from "../src/index.js";
import { createTestDatabase } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("PostgresRunStore: the RunStore contract", () => {
  for (const scenario of RUN_STORE_CONTRACT) {
    it(scenario.name, () =>
      scenario.run(async () => {
        const database = await createTestDatabase(inject("postgresUrl"));
        cleanups.push(() => database.drop());
        // Two pools on one database: the second is another machine's view of the same runs.
        const [mine, theirs] = await Promise.all([
          openPostgresState({ url: database.url }),
          openPostgresState({ url: database.url }),
        ]);
        cleanups.push(
          () => mine.close(),
          () => theirs.close(),
        );
        return { store: mine.runs, peer: theirs.runs };
      }),
    );
  }
});
