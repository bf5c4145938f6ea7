export { sessionCookieName } from "./access.js";
export { escapeHtml } from "./html.js";
export { CONSOLE_ERROR_CODES, type ConsoleErrorCode } from "./http-io.js";
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
