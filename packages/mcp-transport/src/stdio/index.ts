export type { SdkMcpTransport } from "../sdk/create-sdk-transport.js";
export {
  createStdioTransport,
  type StdioMcpTransport,
  type StdioTransportOptions,
} from "./create-stdio-transport.js";
export type {
  StdioLaunch,
  StdioLaunchPlan,
  StdioLaunchSpec,
  StdioServerParameters,
} from "./stdio-launch.js";
export {
  type CloseEscalation,
  type StdioDiagnostics,
  StdioProcessTransport,
} from "./stdio-process-transport.js";
