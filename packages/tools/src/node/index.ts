export {
  createJsonlEventSink,
  type JsonlEventSink,
  type JsonlEventSinkOptions,
  type JsonlFlushMode,
} from "./jsonl-event-sink.js";
