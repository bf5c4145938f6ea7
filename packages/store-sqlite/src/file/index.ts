export { type OpenSqliteStateOptions, openSqliteState } from "./open-sqlite-state.js";
export { assertRegularFileIfPresent, openRegularFile } from "./regular-files.js";
