export { createJsonlEventSink, type JsonlEventSink, type JsonlEventSinkOptions } from "./jsonl-event-sink.js";
