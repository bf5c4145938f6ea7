export type { SdkMcpTransport } from "../sdk/create-sdk-transport.js";
export type { HttpAuthOptions, McpAuthProvider } from "./auth-provider.js";
export { createSseTransport, type SseTransportOptions } from "./create-sse-transport.js";
export {
  createStreamableHttpTransport,
  type StreamableHttpMcpTransport,
  type StreamableHttpTransportOptions,
} from "./create-streamable-http-transport.js";
export type { HttpEndpointOptions } from "./http-options.js";
