export type { SdkMcpTransport } from "../sdk/create-sdk-transport.js";
export type { HttpAuthOptions, McpAuthProvider } from "./auth-provider.js";
export {
  createStreamableHttpTransport,
  type StreamableHttpMcpTransport,
  type StreamableHttpTransportOptions,
} from "./create-streamable-http-transport.js";
