export { CodedError, hasErrorBrand } from "./coded-error.js";
export { messageOf } from "./error-message.js";
export { holdsProcess } from "./timers.js";
export { isPromiseLike, isRecord } from "./value-guards.js";
