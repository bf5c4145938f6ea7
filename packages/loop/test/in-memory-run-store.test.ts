import { InMemoryRunStore } from "@agent/loop";
import { RUN_STORE_CONTRACT } from "@agent/loop/testing";
import { describe, it } from "vitest";

describe("InMemoryRunStore", () => {
  for (const scenario of RUN_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run(() => ({ store: new InMemoryRunStore() })));
  }
});
