export {
  APPROVAL_STORE_CONTRACT,
  type ApprovalStoreFactory,
  type ApprovalStoreScenario,
  sampleApprovalRequest,
} from "./approval-store-contract.js";
