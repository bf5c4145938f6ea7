// The modules of src/state still import isRecord from here; they move into a store package (issue 27),
// and this alias goes with them. Everything else imports it from @agent/base.
export { isRecord } from "@agent/base";
