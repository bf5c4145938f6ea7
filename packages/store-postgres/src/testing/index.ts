export {
  startThrowawayCluster,
  type ThrowawayCluster,
  type ThrowawayClusterOptions,
} from "./throwaway-cluster.js";
