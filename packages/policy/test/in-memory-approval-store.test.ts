import { InMemoryApprovalStore } from "@agent/policy";
import { APPROVAL_STORE_CONTRACT } from "@agent/policy/testing";
import { describe, it } from "vitest";

describe("InMemoryApprovalStore", () => {
  for (const scenario of APPROVAL_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run((now) => new InMemoryApprovalStore({ now })));
  }
});
