export {
  createSdkTransport,
  type RetryDecision,
  type SdkMcpTransport,
  type SdkTransportOptions,
} from "./create-sdk-transport.js";
