import { InMemoryTaintedFileStore } from "@agent/policy";
import { TAINTED_FILE_STORE_CONTRACT } from "@agent/policy/testing";
import { describe, it } from "vitest";

describe("InMemoryTaintedFileStore", () => {
  for (const scenario of TAINTED_FILE_STORE_CONTRACT) {
    it(scenario.name, () =>
      scenario.run(() => {
        const store = new InMemoryTaintedFileStore();
        return { store, peer: store };
      }),
    );
  }
});
