export { type LoopbackHttpServer, startLoopbackHttpServer } from "./loopback-http-server.js";
export {
  assertNoProcessesAlive,
  isProcessAlive,
  processGroupMembers,
  processTreeOf,
} from "./process-tree.js";
export {
  echoSecretsHttpServerPath,
  escapeServerPath,
  legacyServerPath,
  MISBEHAVING_SERVERS,
  type MisbehavingServerName,
  misbehavingServerPath,
  scriptableServerPath,
  sseServerPath,
  statelessServerPath,
  type TestServerName,
  testServerCommand,
} from "./server-paths.js";
export { parseServerRecords, readRecordFile, type ServerRecord } from "./server-records.js";
export { releaseHeldJobs } from "./stateless-control.js";
