export type { SdkMcpTransport } from "../sdk/create-sdk-transport.js";
export {
  createStdioTransport,
  type StdioMcpTransport,
  type StdioTransportOptions,
} from "./create-stdio-transport.js";
export {
  type CloseEscalation,
  type StdioDiagnostics,
  type StdioLaunch,
  type StdioLaunchPlan,
  type StdioLaunchSpec,
  StdioProcessTransport,
  type StdioServerParameters,
} from "./stdio-process-transport.js";
