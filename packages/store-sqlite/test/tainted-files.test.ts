import { TAINT_WINDOW_STORE_CONTRACT, TAINTED_FILE_STORE_CONTRACT } from "@agent/policy/testing";
import { describe, it } from "vitest";
import { useScratchDirectory } from "./scratch.js";

const scratch = useScratchDirectory();
// Two connections to one file: the second stands for another process.
const openStores = () => ({ store: scratch.open().taintedFiles, peer: scratch.open().taintedFiles });

describe("SqliteTaintedFileStore: the TaintedFileStore contract", () => {
  for (const scenario of TAINTED_FILE_STORE_CONTRACT) it(scenario.name, () => scenario.run(openStores));
});

describe("SqliteTaintedFileStore: the TaintWindowStore contract", () => {
  for (const scenario of TAINT_WINDOW_STORE_CONTRACT) it(scenario.name, () => scenario.run(openStores));
});
