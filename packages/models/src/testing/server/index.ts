export type { DecodedModelRequest } from "./decode-helpers.js";
export {
  createFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from "./fake-model-server.js";
export {
  type FakeHangReply,
  type FakeMalformedReply,
  type FakeModelApi,
  type FakeModelServerRequest,
  type FakeServerReply,
  type FakeServerStep,
  type FakeStatusReply,
  type FakeStreamErrorReply,
  hangReply,
  malformedReply,
  statusReply,
  streamErrorReply,
} from "./fake-server-steps.js";
