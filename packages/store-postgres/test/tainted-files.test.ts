import { TAINT_WINDOW_STORE_CONTRACT, TAINTED_FILE_STORE_CONTRACT } from "@agent/policy/testing";
import { afterEach, describe, inject, it } from "vitest";
import { openPostgresState } from "../src/index.js";
import { createTestDatabase } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openStores() {
  const database = await createTestDatabase(inject("postgresUrl"));
  cleanups.push(() => database.drop());
  const [mine, theirs] = await Promise.all([
    openPostgresState({ url: database.url }),
    openPostgresState({ url: database.url }),
  ]);
  cleanups.push(
    () => mine.close(),
    () => theirs.close(),
  );
  return { store: mine.taintedFiles, peer: theirs.taintedFiles };
}

describe("PostgresTaintedFileStore: the TaintedFileStore contract, shared by every machine", () => {
  for (const scenario of TAINTED_FILE_STORE_CONTRACT) it(scenario.name, () => scenario.run(openStores));
});

describe("PostgresTaintedFileStore: the TaintWindowStore contract, shared by every machine", () => {
  for (const scenario of TAINT_WINDOW_STORE_CONTRACT) it(scenario.name, () => scenario.run(openStores));
});
