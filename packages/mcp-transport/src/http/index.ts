export type { SdkMcpTransport } from "../sdk/create-sdk-transport.js";
export {
  createStreamableHttpTransport,
  type StreamableHttpMcpTransport,
  type StreamableHttpTransportOptions,
} from "./create-streamable-http-transport.js";
