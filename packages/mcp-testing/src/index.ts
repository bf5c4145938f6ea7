export {
  type FakeCall,
  type FakeHandler,
  type FakeNotificationRecord,
  type FakeRequestInfo,
  type FakeRequestRecord,
  FakeTransport,
  type FakeTransportOptions,
} from "./fake-transport.js";
export {
  error,
  type FakeServerOptions,
  type FakeToolSpec,
  fakeServer,
  initializeResult,
  OBJECT_SCHEMA,
  ok,
  textContent,
  tool,
} from "./fixtures.js";
export {
  discoverResult,
  type FakeInputRequest,
  inputRequired,
  inputResponsesOf,
  STATELESS_PROTOCOL_VERSION,
  statelessFakeServer,
  taskCreated,
  taskState,
} from "./stateless.js";
