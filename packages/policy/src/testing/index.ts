export {
  APPROVAL_STORE_CONTRACT,
  type ApprovalStoreFactory,
  type ApprovalStoreScenario,
  sampleApprovalRequest,
} from "./approval-store-contract.js";
export {
  type FlowStoreFactory,
  type FlowStoreScenario,
  TAINT_WINDOW_STORE_CONTRACT,
  TAINTED_FILE_STORE_CONTRACT,
} from "./tainted-file-store-contract.js";
