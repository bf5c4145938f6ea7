export {
  createSdkTransport,
  type SdkMcpTransport,
  type SdkTransportOptions,
} from "./create-sdk-transport.js";
