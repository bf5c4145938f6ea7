export { type FileHooks, useThrowawayClusterPerFile } from "./cluster-per-file.js";
export {
  reserveThrowawayCluster,
  startThrowawayCluster,
  THROWAWAY_CLUSTER_TIMEOUT_MS,
  type ThrowawayCluster,
  type ThrowawayClusterHandle,
  type ThrowawayClusterOptions,
} from "./throwaway-cluster.js";
