export { CodedError, hasErrorBrand } from "./coded-error.js";
export { messageOf } from "./error-message.js";
