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
  type FakeInputRequest,
  inputRequired,
  inputResponsesOf,
  statelessFakeServer,
  taskCreated,
  taskState,
} from "./stateless.js";
