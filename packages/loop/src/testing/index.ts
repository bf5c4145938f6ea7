export {
  RUN_STORE_CONTRACT,
  type RunStoreFactory,
  type RunStoreFixture,
  type RunStoreScenario,
  sampleRunState,
} from "./run-store-contract.js";
