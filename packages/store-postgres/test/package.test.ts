import { expect, it } from "vitest";
import * as entry from "../src/index.js";

it("has an entry point", () => {
  expect(Object.keys(entry).length).toBeGreaterThan(0);
});
