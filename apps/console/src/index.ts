export type {
  ApprovalPort,
  AuditPort,
  ConsoleApproval,
  ConsoleAuditFilter,
  ConsolePorts,
  ConsoleRecord,
  ConsoleRunSummary,
  ConsoleServer as ConsoleServerStatus,
  DecisionOutcome,
  RunActionOutcome,
  RunPort,
  ServersPort,
} from "./ports.js";
export { type ConsoleServer, type ConsoleServerOptions, startConsoleServer } from "./server.js";
